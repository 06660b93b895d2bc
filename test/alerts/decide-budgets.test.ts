import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decideAfterSync, type AlertingTarget } from '../../src/alerts/after-sync.js';
import { crossed } from '../../src/alerts/decide-budgets.js';
import { Pseudonymizer } from '../../src/privacy/pii.js';
import { storedHarness, type StoredHarness } from '../helpers/history.js';
import { truth, truthAll } from '../helpers/mcp.js';
import { TODAY } from '../helpers/sim.js';
import { idOf } from '../helpers/tools.js';

const CREDITS = 'BUDGET_RESOURCE_CREDITS_CONSUMED';

let h: StoredHarness;
/** Credits this month per identity (through today), straight from the simulator. */
let used: Map<string, number>;

async function setLimit(identity: string, limit: number) {
  const who = identity.includes('@') ? { user_email: identity } : { service_account_name: identity };
  const r = await truth(
    h.sim,
    'set-user-budget-overrides',
    {},
    { overrides: [{ ...who, resource: CREDITS, period: 'BUDGET_PERIOD_MONTHLY', config: { limit: String(limit) } }] },
  );
  expect(r.failures).toEqual([]);
}

const target = (pii = h.deps.pii): AlertingTarget => ({
  client: h.upstream,
  config: h.deps.config,
  log: h.deps.log,
  history: h.history,
  pii,
});

const budgetAlerts = async (pii?: Pseudonymizer) =>
  (await decideAfterSync(target(pii), [], new AbortController().signal)).filter((c) => c.type === 'budget.threshold');

beforeAll(async () => {
  h = await storedHarness({ historyDays: 3, historyMonths: 0 }, { sim: { users: 120 } });
  used = new Map();
  for (const r of await truthAll(h.sim, 'credit-usage-by-user', 'records', {
    start_date: '2026-11-01',
    end_date: TODAY,
  }))
    used.set(idOf(r), (used.get(idOf(r)) ?? 0) + r.credits_consumed);
}, 120_000);
afterAll(() => h?.close());

describe('budget.threshold', () => {
  it('the thresholds crossed: 100 alone once reached, else 80 and the projection each on its own', () => {
    expect(crossed('100', '100', '150')).toEqual(['100']);
    expect(crossed('80', '100', '99.99')).toEqual(['80']);
    expect(crossed('79.99', '100', '100.00')).toEqual(['projected_100']);
    expect(crossed('80.00', '100', '120')).toEqual(['80', 'projected_100']);
    expect(crossed('79', '100', null)).toEqual([]);
  });

  it('alerts each identity crossing 80 %, 100 % or its projection this month, once per threshold and month', async () => {
    const people = [...used.entries()].filter(([id, n]) => id.includes('@') && n > 1000).sort((a, b) => b[1] - a[1]);
    const [over, eighty, projected] = people.map(([id]) => id);
    await setLimit(over!, used.get(over!)! - 1);
    await setLimit(eighty!, Math.floor(used.get(eighty!)! * 1.2));
    await setLimit(projected!, Math.ceil(used.get(projected!)! * 1.3));
    const alerts = await budgetAlerts();
    const of = (id: string) => alerts.filter((a) => a.data.user_email === id);
    // November 2026 has 20 complete days at the frozen clock: the month ends well above the use so far.
    expect(of(over!).map((a) => a.data.threshold)).toEqual(['100']);
    expect(of(eighty!).map((a) => a.data.threshold)).toEqual(['80', 'projected_100']);
    expect(of(projected!).map((a) => a.data.threshold)).toEqual(['projected_100']);
    const status = await h.call('get_budget_status', { users: [over!, eighty!, projected!] });
    for (const a of [...of(over!), ...of(eighty!), ...of(projected!)]) {
      const id = a.data.user_email as string;
      const row = status.structured.rows.find((r: any) => r.user === id);
      expect(a).toMatchObject({
        dedupKey: `budget.threshold:u:${id}:${a.data.threshold}:2026-11`,
        data: { resource: 'credits', used: String(used.get(id)), limit: row.limit, projected: row.projected },
        scope: { identities: [`u:${id}`] },
      });
    }
    expect(of(over!)[0]!.scope.excessCredits).toBe('1');
    const p = of(projected!)[0]!;
    expect(p.scope.excessCredits).toBe(String(Number(p.data.projected) - Number(p.data.limit)));
    expect(Number(p.scope.excessCredits)).toBeGreaterThanOrEqual(0);
    expect(of(eighty!)[0]!.scope.excessCredits).toBeUndefined();
    // Every alert's numbers agree with its threshold.
    for (const a of alerts) {
      const [u, l] = [Number(a.data.used), Number(a.data.limit)];
      if (a.data.threshold === '100') expect(u).toBeGreaterThanOrEqual(l);
      if (a.data.threshold === '80') expect(u * 5).toBeGreaterThanOrEqual(l * 4);
      if (a.data.threshold === 'projected_100') expect(Number(a.data.projected)).toBeGreaterThanOrEqual(l);
    }
  });

  it('--pii pseudonymous: the alert carries the pseudonym, never the email', async () => {
    const pii = new Pseudonymizer('pseudonymous', 'alerts-test-key');
    const alerts = await budgetAlerts(pii);
    expect(alerts.length).toBeGreaterThan(0);
    for (const a of alerts) {
      expect(a.data.user_email ?? a.data.service_account_name).toBeDefined();
      if (a.data.user_email === undefined) continue;
      expect(a.data.user_email).toMatch(/^user-[0-9a-f]{12}@/);
      expect(JSON.stringify(a.data)).not.toContain(pii.resolve(a.data.user_email as string));
    }
  });
});
