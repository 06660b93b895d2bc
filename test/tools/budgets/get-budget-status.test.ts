import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { harness, truth, truthAll, type Harness } from '../../helpers/mcp.js';
import { TODAY } from '../../helpers/sim.js';
import { TOOL_TEST_USERS, costTruth, idOf, micro } from '../../helpers/tools.js';

// The frozen clock is 2026-11-21: 20 complete days of November, today, and 9 days after it.
const MONTH = { start_date: '2026-11-01', end_date: '2026-11-20' };
const AFTER = 9;
const CREDITS = 'BUDGET_RESOURCE_CREDITS_CONSUMED';

/** Credits per identity: through yesterday and today, from the raw endpoint. */
async function creditsThisMonth(h: Harness) {
  const sum = async (q: Record<string, string>) => {
    const m = new Map<string, number>();
    for (const r of await truthAll(h.sim, 'credit-usage-by-user', 'records', q))
      m.set(idOf(r), (m.get(idOf(r)) ?? 0) + r.credits_consumed);
    return m;
  };
  return { before: await sum(MONTH), today: await sum({ start_date: TODAY, end_date: TODAY }) };
}

/** The projection and limit day, independently: today at the rate (or more), then 9 days at the rate. */
function expected(ty: number, td: number, limit: number) {
  const todayEnd20 = ty * 20 + Math.max(td * 20, ty);
  const projected20 = todayEnd20 + AFTER * ty;
  const projected = Math.floor((2 * projected20 + 20) / 40);
  let day: string | null = null;
  for (let k = 0; k <= AFTER; k++)
    if (todayEnd20 + k * ty >= limit * 20) {
      day = `2026-11-${21 + k}`;
      break;
    }
  return { used: ty + td, projected, day };
}

async function setLimit(h: Harness, identity: Record<string, string>, limit: string) {
  const r = await truth(
    h.sim,
    'set-user-budget-overrides',
    {},
    {
      overrides: [{ ...identity, resource: CREDITS, period: 'BUDGET_PERIOD_MONTHLY', config: { limit } }],
    },
  );
  expect(r.failures).toEqual([]);
}

describe('get_budget_status on a credits plan', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await harness({ sim: { users: TOOL_TEST_USERS } });
  });
  afterAll(() => h.close());

  it('puts someone who crossed their limit this month first, and projects the one about to', async () => {
    const { before, today } = await creditsThisMonth(h);
    const ranked = [...before.entries()].filter(([id]) => id.includes('@')).sort((a, b) => b[1] - a[1]);
    const [crossed, crossedTy] = ranked[0]!;
    const [soon, soonTy] = ranked[1]!;
    const crossedUse = crossedTy + (today.get(crossed) ?? 0);
    await setLimit(h, { user_email: crossed }, String(crossedUse - 1));
    const soonUse = soonTy + (today.get(soon) ?? 0);
    const soonExpected = expected(soonTy, today.get(soon) ?? 0, soonUse + 1);
    expect(soonExpected.projected).toBeGreaterThan(soonUse + 1);
    await setLimit(h, { user_email: soon }, String(soonUse + 1));

    const a = await h.call('get_budget_status', { limit: 1000 });
    expect(a.isError, a.text).toBe(false);
    const overrides = (await truth(h.sim, 'get-user-budget-overrides', {}, {})).overrides;
    expect(a.structured.total_rows).toBe(overrides.length);
    const rows: any[] = a.structured.rows;
    const over = rows.find((r) => r.user === crossed);
    expect(over).toMatchObject({ status: 'over', used: String(crossedUse), limit: String(crossedUse - 1) });
    expect(rows.findIndex((r) => r.status !== 'over')).toBeGreaterThan(rows.indexOf(over));
    const risk = rows.find((r) => r.user === soon);
    expect(risk).toMatchObject({
      status: 'at_risk',
      used: String(soonExpected.used),
      projected: String(soonExpected.projected),
      limit_day: soonExpected.day,
    });
    // Every override's use and projection, from the raw credit usage.
    for (const o of overrides) {
      const row = rows.find((r) => r.user === idOf(o));
      const ty = before.get(idOf(o)) ?? 0;
      const td = today.get(idOf(o)) ?? 0;
      expect(row.used, idOf(o)).toBe(String(ty + td));
      if (o.config.limit === '') expect(row.status).toBe('cleared');
      else expect(row.projected).toBe(String(expected(ty, td, Number(o.config.limit)).projected));
    }
    const order = ['over', 'at_risk', 'ok', 'cleared', 'no_override'];
    const ranks = rows.map((r) => order.indexOf(r.status));
    expect(ranks).toEqual([...ranks].sort((x, y) => x - y));
    expect(a.structured.month_to_date).toMatchObject({ start: '2026-11-01', through: TODAY, includes_today: true });
    expect(a.text).toMatch(/including today/);
    expect(a.text).toMatch(/Projected at the average daily use of the month's 20 complete days/);
    expect(a.text).toMatch(/cleared/);
  });

  it('names people without an override as such, with their use', async () => {
    const overrides = (await truth(h.sim, 'get-user-budget-overrides', {}, {})).overrides;
    const { before, today } = await creditsThisMonth(h);
    const without = [...before.keys()].find((id) => id.includes('@') && !overrides.some((o: any) => idOf(o) === id))!;
    const a = await h.call('get_budget_status', { users: [without] });
    expect(a.structured.rows).toEqual([
      expect.objectContaining({
        user: without,
        status: 'no_override',
        limit: null,
        used: String(before.get(without)! + (today.get(without) ?? 0)),
      }),
    ]);
  });
});

describe('get_budget_status on a USD plan, pseudonymous', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await harness({ sim: { users: TOOL_TEST_USERS, plan: 'usd' }, config: { pii: 'pseudonymous' } });
  });
  afterAll(() => h.close());

  it('reads billed USD by user up to yesterday, exactly, and never shows an email', async () => {
    const overrides = (await truth(h.sim, 'get-user-budget-overrides', {}, {})).overrides;
    const billed = new Map<string, bigint>();
    for (const p of await costTruth(h.sim, { ...MONTH, group_by_keys: ['COST_ANALYTICS_GROUP_BY_USER'] })) {
      const id = p.group_by_values.user_info.user_email ?? p.group_by_values.user_info.service_account_name;
      billed.set(id, (billed.get(id) ?? 0n) + micro(p.cost_metrics.billed_amount_usd));
    }
    const a = await h.call('get_budget_status', { limit: 1000 });
    expect(a.isError, a.text).toBe(false);
    expect(a.structured.plan).toBe('usd');
    expect(a.structured.month_to_date).toMatchObject({ through: '2026-11-20', includes_today: false });
    expect(a.text).toMatch(/cost stops at yesterday/);
    for (const o of overrides) if (o.user_email) expect(a.text).not.toContain(o.user_email.split('@')[0]);
    // Service-account names are not pseudonymised: their rows match one by one; people's in total.
    let people = 0n;
    for (const o of overrides) {
      if (o.service_account_name) {
        const row = a.structured.rows.find((r: any) => r.user === o.service_account_name);
        expect(micro(row.used)).toBe(billed.get(o.service_account_name) ?? 0n);
      } else people += billed.get(o.user_email) ?? 0n;
    }
    const shown = a.structured.rows.filter((r: any) => r.kind === 'user');
    expect(shown.every((r: any) => /^user-[0-9a-f]{12}@/.test(r.user))).toBe(true);
    expect(shown.reduce((n: bigint, r: any) => n + micro(r.used), 0n)).toBe(people);
  });
});
