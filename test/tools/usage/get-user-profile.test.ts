import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { harness, truth, truthAll, type Harness } from '../../helpers/mcp.js';
import { startSimulator } from '../../../src/simulator/index.js';
import { storedHarness } from '../../helpers/history.js';
import { NOW, TODAY, YESTERDAY, addDays } from '../../helpers/sim.js';
import { R30, TOOL_TEST_USERS, costTruth, idOf, latestActive, micro } from '../../helpers/tools.js';

let h: Harness;
beforeAll(async () => {
  h = await harness({ sim: { users: TOOL_TEST_USERS } });
});
afterAll(() => h.close());

/** One identity's credits per model over a range, from credit usage by model. */
const creditsByModel = async (q: Record<string, string>, id: string) => {
  const m = new Map<string, number>();
  for (const r of await truthAll(h.sim, 'credit-usage-by-user', 'records', { ...q, by_model: 'true' }))
    if (idOf(r) === id) m.set(r.model_name, (m.get(r.model_name) ?? 0) + r.credits_consumed);
  return m;
};

const credits = async (q: Record<string, string>, id: string) =>
  (await truthAll(h.sim, 'credit-usage-by-user', 'records', q))
    .filter((r) => idOf(r) === id)
    .reduce((n, r) => n + r.credits_consumed, 0);

describe('get_user_profile', () => {
  it('gives one identity its activity, cost by model, budget and editors, each from the raw endpoints', async () => {
    const overrides = (await truth(h.sim, 'get-user-budget-overrides', {}, {})).overrides;
    const users = await truthAll(h.sim, 'user-activity', 'users', R30);
    // The most active person with an override, so that every part of the profile has something to say.
    const person = users
      .filter((u) => u.user_email && overrides.some((o: any) => o.user_email === u.user_email && o.config.limit))
      .sort((x, y) => y.metrics.total_messages - x.metrics.total_messages)[0]!;
    const id = person.user_email;
    const a = await h.call('get_user_profile', { user: id });
    expect(a.isError, a.text).toBe(false);
    const p = a.structured;
    expect(p).toMatchObject({ user: id, kind: 'user', ...R30 });
    expect(p.activity).toEqual({ active_days: person.active_days, metrics: person.metrics });

    const points = await costTruth(h.sim, {
      ...R30,
      group_by_keys: ['COST_ANALYTICS_GROUP_BY_RESOURCE'],
      granularity: 'COST_ANALYTICS_TIME_GRANULARITY_DAY',
      filters: { user_emails: [id] },
    });
    const billed = (ps: any[]) => ps.reduce((n, q) => n + micro(q.cost_metrics.billed_amount_usd), 0n);
    expect(micro(p.cost.billed_amount_usd)).toBe(billed(points));
    expect(p.cost.by_model.length).toBeGreaterThan(0);
    for (const m of p.cost.by_model)
      expect(micro(m.billed_amount_usd), m.model).toBe(
        billed(points.filter((q) => q.group_by_values.resource_display_name === m.model)),
      );
    // Credits, in all and by model, are credit usage's: the source the budget counts.
    const byModel = await creditsByModel(R30, id);
    expect(p.credits.credits_consumed).toBe(String([...byModel.values()].reduce((n, c) => n + c, 0)));
    expect(Object.fromEntries(p.credits.by_model.map((m: any) => [m.model, Number(m.credits_consumed)]))).toEqual(
      Object.fromEntries(byModel),
    );
    expect(p.sources).toEqual({
      activity: 'user-activity',
      credits: 'credit-usage-by-user',
      cost: 'cost-analytics',
      budget: 'credit-usage-by-user',
      latest_active_day: 'dau',
      uses: 'daily-user-activity-by-editor-language',
    });
    expect(a.text).toMatch(/Credits \(credit usage\) [\d,]+; by model: /);
    expect(a.text).toMatch(/Cost \(cost analytics\) billed \$/);

    const override = overrides.find((o: any) => o.user_email === id);
    const used =
      (await credits({ start_date: '2026-11-01', end_date: '2026-11-20' }, id)) +
      (await credits({ start_date: TODAY, end_date: TODAY }, id));
    expect(p.budget).toMatchObject({ plan: 'credits', limit: override.config.limit, used: String(used) });
    // What "used" covers: this month's credits, today's part included.
    expect(p.budget).toMatchObject({ start: '2026-11-01', through: TODAY, includes_today: true });
    expect(p.budget.covers).toMatch(/including today/);
    expect(a.text).toMatch(/Budget this month \(credits\).*2026-11-01\.\.2026-11-21.*including today/);
    if (used >= Number(override.config.limit)) expect(p.budget.status).toBe('over');
    else expect(['ok', 'at_risk']).toContain(p.budget.status);

    const day = (await latestActive(h, R30, id))!;
    const records = (await truthAll(h.sim, 'daily-user-activity-by-editor-language', 'records', { date: day })).filter(
      (r) => r.user_email === id,
    );
    expect(p.uses.date).toBe(day);
    for (const r of records) expect(p.uses.editors[r.editor]).toBeGreaterThanOrEqual(r.metrics.total_messages);
    expect(Object.values(p.uses.editors).reduce((n: number, v: any) => n + v, 0)).toBe(
      records.reduce((n, r) => n + r.metrics.total_messages, 0),
    );
    expect(a.text).toMatch(/latest active day/);
  });

  it('takes credits from credit usage where cost analytics counts others too, agreeing with the budget', async () => {
    const q = { start_date: '2026-11-01', end_date: '2026-11-20' };
    // Cost analytics also counts sandbox compute in credits; credit usage counts model credits only.
    const accounts = (await truthAll(h.sim, 'user-activity', 'users', q)).filter((u) => u.service_account_name);
    let picked: { id: string; cost: bigint } | undefined;
    for (const u of accounts) {
      const points = await costTruth(h.sim, { ...q, filters: { service_account_names: [u.service_account_name] } });
      const cost = points.reduce((n, p) => n + micro(p.cost_metrics.credits_consumed), 0n);
      const usage = [...(await creditsByModel(q, u.service_account_name)).values()].reduce((n, c) => n + c, 0);
      if (cost !== micro(String(usage))) picked = { id: u.service_account_name, cost };
      if (picked) break;
    }
    expect(picked, 'an identity on which the two endpoints disagree').toBeDefined();
    const a = await h.call('get_user_profile', { user: picked!.id, range: 'month_to_date' });
    expect(a.isError, a.text).toBe(false);
    const p = a.structured;
    expect(p).toMatchObject(q);
    expect(micro(p.credits.credits_consumed)).not.toBe(picked!.cost);
    const usage = [...(await creditsByModel(q, picked!.id)).values()].reduce((n, c) => n + c, 0);
    expect(p.credits.credits_consumed).toBe(String(usage));
    // The budget's use this month is the same credits plus today's so far: one source, no contradiction.
    expect(Number(p.budget.used)).toBe(usage + (await credits({ start_date: TODAY, end_date: TODAY }, picked!.id)));
    expect(a.text).toContain(`Credits (credit usage) ${Number(usage).toLocaleString('en-US')}`);
  });

  it('profiles a service account, and refuses a name that is neither', async () => {
    const a = await h.call('get_user_profile', { user: 'ci-pipeline', range: 'last_7_days' });
    expect(a.isError, a.text).toBe(false);
    expect(a.structured).toMatchObject({ user: 'ci-pipeline', kind: 'service_account' });
    const bad = await h.call('get_user_profile', { user: 'not a name' });
    expect(bad.isError).toBe(true);
    expect(bad.text).toMatch(/service-account name/);
  });
});

describe('get_user_profile with the upstream unreachable', () => {
  it('answers the stored days, and says this month’s budget needs the upstream', async () => {
    const sim = await startSimulator({ users: 60, now: NOW, rateLimit: false, token: 'rw' });
    const stored = await storedHarness({ historyDays: 8, historyMonths: 0 }, { simulator: sim });
    try {
      const person = stored.sim.state.org.identities.find((i) => i.kind === 'user' && i.activity > 0.8)!.id;
      const args = { user: person, start_date: addDays(YESTERDAY, -6), end_date: YESTERDAY };
      const online = await stored.call('get_user_profile', args);
      expect(online.isError, online.text).toBe(false);
      expect(online.structured.budget).not.toBeNull();
      await sim.close();
      const offline = await stored.call('get_user_profile', args);
      expect(offline.isError, offline.text).toBe(false);
      expect(offline.structured.budget).toBeNull();
      expect(offline.structured.budget_unavailable).toMatch(/read live, and the upstream could not be reached/);
      expect(offline.text).toContain('Budget this month: unavailable.');
      expect(offline.structured.sources.budget).toBeUndefined();
      // Everything else is the store's, as it answered online.
      for (const part of ['activity', 'credits', 'cost', 'uses'] as const)
        expect(offline.structured[part], part).toEqual(online.structured[part]);
    } finally {
      await stored.close();
    }
  }, 60_000);
});
