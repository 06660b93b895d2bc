import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { harness, truth, type Harness } from '../../helpers/mcp.js';
import { YESTERDAY } from '../../helpers/sim.js';
import { R30, TOOL_TEST_USERS } from '../../helpers/tools.js';

let h: Harness;
beforeAll(async () => {
  h = await harness({ sim: { users: TOOL_TEST_USERS } });
});
afterAll(() => h.close());

describe('get_active_user_counts', () => {
  it('reports the days and a summary that match the upstream, for a named range', async () => {
    const a = await h.call('get_active_user_counts', { range: 'last_30_days' });
    expect(a.isError).toBe(false);
    const days = (await truth(h.sim, 'dau-count', R30)).daily_active_user_counts;
    expect(a.structured.days).toEqual(days);
    const avg = days.reduce((n: number, d: any) => n + d.user_count, 0) / days.length;
    expect(a.structured.summary.average).toBeCloseTo(avg, 1);
    expect(a.structured.summary.peak.user_count).toBe(Math.max(...days.map((d: any) => d.user_count)));
    expect(a.text).toMatch(/Daily active users 2026-10-22\.\.2026-11-20 \(30 days\)/);
    expect(a.text).toMatch(/data through 2026-11-20; next refresh ~03:00 UTC/);
  });

  it('splits a 120-day range and still reports every day', async () => {
    const a = await h.call('get_active_user_counts', { start_date: '2026-07-24', end_date: YESTERDAY });
    expect(a.structured.days).toHaveLength(120);
  });

  it('compares only full Monday-to-Sunday weeks: a partial last week never makes the trend', async () => {
    // last_30_days is Thu 2026-10-22 .. Fri 2026-11-20: the last 7-day chunk from the start would be Thu+Fri alone.
    const a = await h.call('get_active_user_counts', { range: 'last_30_days' });
    const days: Array<{ date: string; user_count: number }> = (await truth(h.sim, 'dau-count', R30))
      .daily_active_user_counts;
    const avg = (from: string) => {
      const i = days.findIndex((d) => d.date === from);
      return days.slice(i, i + 7).reduce((n, d) => n + d.user_count, 0) / 7;
    };
    const mondays = ['2026-10-26', '2026-11-02', '2026-11-09'];
    const s = a.structured.summary;
    expect(s.weekly_averages.map((w: any) => w.week_start)).toEqual(mondays);
    s.weekly_averages.forEach((w: any, i: number) => expect(w.average).toBeCloseTo(avg(mondays[i]!), 1));
    expect(s.trend.method).toBe('full_weeks');
    expect([s.trend.from.start, s.trend.from.end, s.trend.to.start, s.trend.to.end]).toEqual([
      '2026-10-26',
      '2026-11-01',
      '2026-11-09',
      '2026-11-15',
    ]);
    const change = ((avg('2026-11-09') - avg('2026-10-26')) / avg('2026-10-26')) * 100;
    expect(s.trend.change_percent).toBeCloseTo(change, 0);
    expect(a.text).toMatch(/first to last full week/);
  });

  it('compares weekday-balanced halves when there are fewer than two full weeks', async () => {
    // Tue 2026-11-03 .. Mon 2026-11-16 holds one full week; its halves are 7 days each.
    const range = { start_date: '2026-11-03', end_date: '2026-11-16' };
    const a = await h.call('get_active_user_counts', range);
    const days: Array<{ user_count: number }> = (await truth(h.sim, 'dau-count', range)).daily_active_user_counts;
    const sum = (xs: Array<{ user_count: number }>) => xs.reduce((n, d) => n + d.user_count, 0);
    const t = a.structured.summary.trend;
    expect(t.method).toBe('halves');
    expect(t.from.average).toBeCloseTo(sum(days.slice(0, 7)) / 7, 1);
    expect(t.to.average).toBeCloseTo(sum(days.slice(7)) / 7, 1);
    expect((await h.call('get_active_user_counts', { range: 'last_7_days' })).structured.summary.trend).toBeNull();
  });
});
