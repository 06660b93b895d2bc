import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { harness, truth, truthAll, type Harness } from '../helpers/mcp.js';
import { TODAY } from '../helpers/sim.js';
import { R30, TOOL_TEST_USERS, costTruth, idOf, micro } from '../helpers/tools.js';

let h: Harness;
beforeAll(async () => {
  h = await harness({ sim: { users: TOOL_TEST_USERS } });
});
afterAll(() => h.close());

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
    expect(micro(p.cost.credits_consumed)).toBe(
      points.reduce((n, q) => n + micro(q.cost_metrics.credits_consumed), 0n),
    );
    for (const m of p.cost.by_model)
      expect(micro(m.billed_amount_usd), m.model).toBe(
        billed(points.filter((q) => q.group_by_values.resource_display_name === m.model)),
      );

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

    const active = points
      .filter((q) => micro(q.cost_metrics.billed_amount_usd) > 0n || micro(q.cost_metrics.credits_consumed) > 0n)
      .map((q) => q.start_date)
      .sort();
    const day = active.at(-1);
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

  it('profiles a service account, and refuses a name that is neither', async () => {
    const a = await h.call('get_user_profile', { user: 'ci-pipeline', range: 'last_7_days' });
    expect(a.isError, a.text).toBe(false);
    expect(a.structured).toMatchObject({ user: 'ci-pipeline', kind: 'service_account' });
    const bad = await h.call('get_user_profile', { user: 'not a name' });
    expect(bad.isError).toBe(true);
    expect(bad.text).toMatch(/service-account name/);
  });
});
