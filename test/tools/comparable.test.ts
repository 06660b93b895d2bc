import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { harness, truth, truthAll, type Harness } from '../helpers/mcp.js';
import { R30, TOOL_TEST_USERS, costTruth, idOf, micro } from '../helpers/tools.js';

let h: Harness;
beforeAll(async () => {
  h = await harness({ sim: { users: TOOL_TEST_USERS } });
});
afterAll(() => h.close());

const PREVIOUS = { start_date: '2026-09-22', end_date: '2026-10-21' };

describe('compare_to on the range tools', () => {
  it('get_user_activity: totals of both periods, the change, and who rose and fell the most', async () => {
    const a = await h.call('get_user_activity', { range: 'last_30_days', compare_to: 'previous_period' });
    expect(a.isError, a.text).toBe(false);
    const c = a.structured.comparison;
    expect(c).toMatchObject({ ...PREVIOUS, days: 30, current_days: 30, basis: 'totals' });
    const now = await truthAll(h.sim, 'user-activity', 'users', R30);
    const before = await truthAll(h.sim, 'user-activity', 'users', PREVIOUS);
    const total = (us: any[]) => us.reduce((n, u) => n + u.metrics.total_messages, 0);
    const messages = c.metrics.find((m: any) => m.name === 'total_messages');
    expect(messages).toEqual({
      name: 'total_messages',
      current: String(total(now)),
      previous: String(total(before)),
      absolute: String(total(now) - total(before)),
      percent: Math.round(((total(now) - total(before)) / total(before)) * 1000) / 10,
    });
    expect(c.metrics.find((m: any) => m.name === 'active_users')).toMatchObject({
      current: String(now.length),
      previous: String(before.length),
    });
    const was = new Map(before.map((u) => [idOf(u), u.metrics.total_messages]));
    const is = new Map(now.map((u) => [idOf(u), u.metrics.total_messages]));
    const deltas = [...new Set([...was.keys(), ...is.keys()])].map((id) => [
      id,
      (is.get(id) ?? 0) - (was.get(id) ?? 0),
    ]);
    const rose = deltas.filter(([, d]) => d > 0).sort((x, y) => y[1] - x[1] || (x[0] < y[0] ? -1 : 1));
    const fell = deltas.filter(([, d]) => d < 0).sort((x, y) => x[1] - y[1] || (x[0] < y[0] ? -1 : 1));
    expect(c.movers.rose.map((r: any) => [r.user, r.change])).toEqual(rose.slice(0, 5));
    expect(c.movers.fell.map((r: any) => [r.user, r.change])).toEqual(fell.slice(0, 5));
    expect(a.text).toMatch(/vs 2026-09-22\.\.2026-10-21 \(totals\)/);
    expect(a.text).toMatch(/Movers by total_messages/);
  });

  it('get_credit_usage: periods of different lengths are compared per day, and say so', async () => {
    const other = { start_date: '2026-10-01', end_date: '2026-10-10' };
    const a = await h.call('get_credit_usage', { ...R30, compare_to: other });
    const c = a.structured.comparison;
    expect(c).toMatchObject({ ...other, days: 10, current_days: 30, basis: 'per_day' });
    const sum = async (q: Record<string, string>) =>
      (await truthAll(h.sim, 'credit-usage-by-user', 'records', q)).reduce((n, r) => n + r.credits_consumed, 0);
    const perDay = (n: number, d: number) => (Math.round((n * 100) / d) / 100).toFixed(2);
    const credits = c.metrics.find((m: any) => m.name === 'credits_consumed');
    expect(credits.current).toBe(perDay(await sum(R30), 30));
    expect(credits.previous).toBe(perDay(await sum(other), 10));
    expect(a.text).toMatch(/per day: 30 vs 10 days/);
  });

  it('get_cost_analytics: the same dates a year before, summed exactly', async () => {
    const a = await h.call('get_cost_analytics', { ...R30, compare_to: 'previous_year' });
    const c = a.structured.comparison;
    const last = { start_date: '2025-10-22', end_date: '2025-11-20' };
    expect(c).toMatchObject({ ...last, basis: 'totals' });
    const billed = (ps: any[]) => ps.reduce((n, p) => n + micro(p.cost_metrics.billed_amount_usd), 0n);
    const [now, then] = [billed(await costTruth(h.sim, R30)), billed(await costTruth(h.sim, last))];
    const m = c.metrics.find((x: any) => x.name === 'billed_amount_usd');
    expect([micro(m.current), micro(m.previous), micro(m.absolute)]).toEqual([now, then, now - then]);
  });

  it('get_daily_usage and get_active_user_counts compare their own figures', async () => {
    const usage = await h.call('get_daily_usage', { range: 'last_30_days', compare_to: 'previous_period' });
    const days = (await truth(h.sim, 'daily-usage', PREVIOUS)).daily_usage;
    const m = usage.structured.comparison.metrics.find((x: any) => x.name === 'total_messages');
    expect(m.previous).toBe(String(days.reduce((n: number, d: any) => n + d.metrics.total_messages, 0)));
    const dau = await h.call('get_active_user_counts', { range: 'last_30_days', compare_to: 'previous_period' });
    const counts = (await truth(h.sim, 'dau-count', PREVIOUS)).daily_active_user_counts;
    const peak = dau.structured.comparison.metrics.find((x: any) => x.name === 'peak');
    expect(peak.previous).toBe(String(Math.max(...counts.map((d: any) => d.user_count))));
  });

  it('refuses compare_to with one raw page', async () => {
    const a = await h.call('get_user_activity', { page_size: 5, compare_to: 'previous_period' });
    expect(a.isError).toBe(true);
    expect(a.text).toMatch(/leave out cursor and page_size/);
  });
});
