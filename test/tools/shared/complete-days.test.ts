import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { harness, truth, truthAll, type Harness } from '../../helpers/mcp.js';
import { costTruth, idOf, micro } from '../../helpers/tools.js';

// 01:00 UTC on Tuesday 2026-11-17: Monday's metrics and cost count from 03:00 (the default --refresh-hour),
// so the latest complete day is Sunday 2026-11-15 until then.
const EARLY = '2026-11-17T01:00:00Z';
const LATE = '2026-11-17T03:00:00Z';
const BY_USER = { group_by_keys: ['COST_ANALYTICS_GROUP_BY_USER'] };
const BY_RESOURCE = { group_by_keys: ['COST_ANALYTICS_GROUP_BY_RESOURCE'] };
const billed = (points: any[]) => points.reduce((n, p) => n + micro(p.cost_metrics.billed_amount_usd), 0n);

let h: Harness;
beforeAll(async () => {
  h = await harness({ sim: { users: 120, plan: 'usd', now: EARLY } });
});
afterAll(() => h.close());

/** Billed USD per identity over a period, from the raw cost analytics. */
async function billedByUser(period: Record<string, string>) {
  const m = new Map<string, bigint>();
  for (const p of await costTruth(h.sim, { ...period, ...BY_USER })) {
    const u = p.group_by_values.user_info;
    const id = u.user_email ?? u.service_account_name;
    m.set(id, (m.get(id) ?? 0n) + micro(p.cost_metrics.billed_amount_usd));
  }
  return m;
}

describe('before the 03:00 UTC refresh hour the latest complete day is the day before yesterday', () => {
  it('get_budget_status (USD) stops the cost there, and projects from its complete days', async () => {
    const overrides = (await truth(h.sim, 'get-user-budget-overrides', {}, {})).overrides;
    const used = await billedByUser({ start_date: '2026-11-01', end_date: '2026-11-15' });
    const a = await h.call('get_budget_status', { limit: 1000 });
    expect(a.isError, a.text).toBe(false);
    expect(a.structured.month_to_date).toMatchObject({
      start: '2026-11-01',
      through: '2026-11-15',
      includes_today: false,
    });
    expect(a.structured.month_to_date.covers).toMatch(/2026-11-01\.\.2026-11-15.*2026-11-16 arrives at ~03:00 UTC/);
    expect(a.structured.projection).toMatch(/the month's 15 complete days/);
    expect(a.structured.freshness.data_through).toBe('2026-11-15');
    expect(a.text).toMatch(/2026-11-16 arrives at ~03:00 UTC/);
    let checked = 0;
    for (const o of overrides) {
      const row = a.structured.rows.find((r: any) => r.user === idOf(o));
      const use = used.get(idOf(o)) ?? 0n;
      expect(micro(row.used), idOf(o)).toBe(use);
      if (use === 0n) continue;
      // 30 days at the average of 15: twice the use, to the cent.
      expect(Math.abs(Number(row.projected) - (Number(use) / 1e6) * 2), idOf(o)).toBeLessThanOrEqual(0.005);
      checked++;
    }
    expect(checked).toBeGreaterThan(0);
  });

  it('get_usage_overview ends its default range, editor day, cost comparison and freshness there', async () => {
    const a = await h.call('get_usage_overview', {});
    expect(a.isError, a.text).toBe(false);
    const o = a.structured;
    const period = { start_date: '2026-10-17', end_date: '2026-11-15' };
    expect(o).toMatchObject(period);
    const days: any[] = (await truth(h.sim, 'dau-count', period)).daily_active_user_counts;
    expect(days.every((d) => d.user_count > 0)).toBe(true);
    expect(o.active_users.daily_average).toBeCloseTo(days.reduce((n, d) => n + d.user_count, 0) / days.length, 1);
    expect(o.active_users.distinct).toBe((await truthAll(h.sim, 'user-activity', 'users', period)).length);
    const previous = { start_date: '2026-09-17', end_date: '2026-10-16' };
    expect(o.previous).toMatchObject(previous);
    expect(micro(o.cost.billed_amount_usd)).toBe(billed(await costTruth(h.sim, { ...period, ...BY_RESOURCE })));
    expect(micro(o.previous.cost.billed_amount_usd)).toBe(
      billed(await costTruth(h.sim, { ...previous, ...BY_RESOURCE })),
    );
    // Sunday 2026-11-15 ends the range: Friday is its last weekday.
    const records = await truthAll(h.sim, 'daily-user-activity-by-editor-language', 'records', { date: '2026-11-13' });
    expect(o.editors).toMatchObject({ date: '2026-11-13', active_users: new Set(records.map(idOf)).size });
    expect(o.editors.active_users).toBeGreaterThan(0);
    expect(o.freshness.data_through).toBe('2026-11-15');
    expect(o.covers).toMatch(/through 2026-11-15.*2026-11-16 arrives at ~03:00 UTC/);
    expect(a.text).toMatch(/2026-11-16 arrives at ~03:00 UTC/);
  });

  it('get_user_profile: its range, cost and budget stop there, and the budget says what it covers', async () => {
    const a = await h.call('get_user_profile', { user: 'ci-pipeline' });
    expect(a.isError, a.text).toBe(false);
    const p = a.structured;
    const period = { start_date: '2026-10-17', end_date: '2026-11-15' };
    expect(p).toMatchObject(period);
    const points = await costTruth(h.sim, {
      ...period,
      ...BY_RESOURCE,
      filters: { service_account_names: ['ci-pipeline'] },
    });
    expect(micro(p.cost.billed_amount_usd)).toBe(billed(points));
    const used = (await billedByUser({ start_date: '2026-11-01', end_date: '2026-11-15' })).get('ci-pipeline')!;
    expect(micro(p.budget.used)).toBe(used);
    expect(p.budget).toMatchObject({ plan: 'usd', through: '2026-11-15', includes_today: false });
    expect(p.budget.covers).toMatch(/2026-11-16 arrives at ~03:00 UTC/);
    expect(p.freshness.data_through).toBe('2026-11-15');
    expect(a.text).toMatch(/Budget this month \(usd\).*2026-11-01\.\.2026-11-15/);
  });

  it('refuses an overview of yesterday alone, which has not arrived', async () => {
    const a = await h.call('get_usage_overview', { start_date: '2026-11-16', end_date: '2026-11-16' });
    expect(a.isError).toBe(true);
    expect(a.text).toMatch(/2026-11-16 is not complete yet: 2026-11-16 arrives at ~03:00 UTC/);
  });

  it('from the 03:00 UTC refresh hour yesterday counts, in all three', async () => {
    h.sim.clock.set(LATE);
    const status = await h.call('get_budget_status', {});
    expect(status.structured.month_to_date).toMatchObject({ through: '2026-11-16', includes_today: false });
    expect(status.structured.month_to_date.covers).toMatch(/cost stops at yesterday/);
    expect(status.structured.projection).toMatch(/the month's 16 complete days/);
    const overview = await h.call('get_usage_overview', {});
    expect(overview.structured).toMatchObject({ start_date: '2026-10-18', end_date: '2026-11-16' });
    expect(overview.structured.editors.date).toBe('2026-11-16');
    expect(overview.text).not.toMatch(/arrives at/);
    const profile = await h.call('get_user_profile', { user: 'ci-pipeline' });
    expect(profile.structured).toMatchObject({ end_date: '2026-11-16', budget: { through: '2026-11-16' } });
  });
});
