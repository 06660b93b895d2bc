import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { harness, truth, truthAll, type Harness } from '../helpers/mcp.js';
import { requestsTo } from '../helpers/client.js';
import { costTruth } from '../helpers/tools.js';

// Tuesday 2026-11-17. Monday's figures count as published from 03:00 UTC (the default --refresh-hour): at
// 01:00 the latest complete day is Sunday 2026-11-15, at 04:00 it is Monday 2026-11-16.
const EARLY = '2026-11-17T01:00:00Z';
const LATE = '2026-11-17T04:00:00Z';
// The 1st of a month before the refresh: November's last day is not published yet.
const FIRST = '2026-12-01T01:30:00Z';

type Day = { date: string; user_count: number };
const sum = (days: Day[]) => days.reduce((n, d) => n + d.user_count, 0);
/** The percent change between two exact averages (sums over counts), rounded once to one decimal, as a reader checks it. */
function exactPercent(now: Day[], before: Day[]): number {
  const x = BigInt(sum(now)) * BigInt(before.length);
  const y = BigInt(sum(before)) * BigInt(now.length);
  // Half up on the absolute value, to one decimal: round(1000·(x−y)/y) / 10.
  const n = (x - y) * 1000n;
  const q = (2n * (n < 0n ? -n : n) + y) / (2n * y);
  return (n < 0n ? -Number(q) : Number(q)) / 10;
}

let h: Harness;
beforeAll(async () => {
  h = await harness({ sim: { users: 150, plan: 'usd', now: EARLY } });
});
afterAll(() => h.close());

describe('named and default ranges end on the latest complete day', () => {
  it('at 01:00 UTC, last_90_days ends on the day before yesterday: no empty day drags the average or makes the low', async () => {
    h.sim.clock.set(EARLY);
    const a = await h.call('get_active_user_counts', { range: 'last_90_days' });
    expect(a.isError, a.text).toBe(false);
    const period = { start_date: '2026-08-18', end_date: '2026-11-15' };
    expect(a.structured).toMatchObject(period);
    const days: Day[] = (await truth(h.sim, 'dau-count', period)).daily_active_user_counts;
    expect(a.structured.days).toEqual(days);
    expect(days.every((d) => d.user_count > 0)).toBe(true);
    expect(a.structured.summary.low.user_count).toBe(Math.min(...days.map((d) => d.user_count)));
    expect(a.structured.summary.average).toBeCloseTo(sum(days) / days.length, 1);
    expect(a.structured.freshness.data_through).toBe('2026-11-15');
    expect(a.structured.freshness.not_published).toBeUndefined();
    expect(a.text).toMatch(/data through 2026-11-15; next refresh ~03:00 UTC/);
  });

  it('at 01:00 UTC, the other range tools and the default ranges and dates stop there too', async () => {
    h.sim.clock.set(EARLY);
    const usage = await h.call('get_daily_usage', {});
    expect(usage.structured).toMatchObject({ start_date: '2026-11-09', end_date: '2026-11-15' });
    const activity = await h.call('get_user_activity', { range: 'last_7_days' });
    expect(activity.structured).toMatchObject({ start_date: '2026-11-09', end_date: '2026-11-15' });
    expect(activity.structured.freshness.data_through).toBe('2026-11-15');
    const cost = await h.call('get_cost_analytics', { range: 'last_30_days' });
    expect(cost.structured).toMatchObject({ start_date: '2026-10-17', end_date: '2026-11-15' });
    const listed = await h.call('list_active_users', {});
    expect(listed.structured.date).toBe('2026-11-15');
    const records = await truthAll(h.sim, 'dau', 'users', { date: '2026-11-15' });
    expect(listed.structured.total_rows).toBe(records.length);
    expect(records.length).toBeGreaterThan(0);
    const editors = await h.call('get_editor_language_activity', {});
    expect(editors.structured.date).toBe('2026-11-15');
    // Credit usage has today: its named ranges still end today.
    const credits = await h.call('get_credit_usage', { range: 'last_7_days' });
    expect(credits.structured).toMatchObject({ start_date: '2026-11-11', end_date: '2026-11-17' });
  });

  it('at 04:00 UTC, after the refresh hour, they end yesterday', async () => {
    h.sim.clock.set(LATE);
    const a = await h.call('get_active_user_counts', { range: 'last_90_days' });
    expect(a.structured).toMatchObject({ start_date: '2026-08-19', end_date: '2026-11-16' });
    expect(a.structured.days.at(-1).user_count).toBeGreaterThan(0);
    expect(a.structured.freshness.data_through).toBe('2026-11-16');
    expect((await h.call('get_daily_usage', {})).structured.end_date).toBe('2026-11-16');
    expect((await h.call('list_active_users', {})).structured.date).toBe('2026-11-16');
  });
});

describe('explicit dates that include a day not published yet are answered as asked', () => {
  it('get_active_user_counts lists the day, names it, and leaves it out of the average, the low and the trend', async () => {
    h.sim.clock.set(EARLY);
    const asked = { start_date: '2026-11-02', end_date: '2026-11-16' };
    const a = await h.call('get_active_user_counts', asked);
    expect(a.isError, a.text).toBe(false);
    expect(a.structured).toMatchObject(asked);
    const all: Day[] = (await truth(h.sim, 'dau-count', asked)).daily_active_user_counts;
    expect(a.structured.days).toEqual(all);
    // The upstream reads the unpublished day as zero.
    expect(all.at(-1)).toEqual({ date: '2026-11-16', user_count: 0 });
    const published = all.slice(0, -1);
    const s = a.structured.summary;
    expect(s.days).toBe(14);
    expect(s.average).toBeCloseTo(sum(published) / 14, 1);
    expect(s.low.user_count).toBe(Math.min(...published.map((d) => d.user_count)));
    expect(s.low.date).not.toBe('2026-11-16');
    expect(s.trend).toMatchObject({ method: 'full_weeks', to: { start: '2026-11-09', end: '2026-11-15' } });
    expect(s.trend.change_percent).toBe(exactPercent(published.slice(7), published.slice(0, 7)));
    expect(a.structured.freshness).toMatchObject({ data_through: '2026-11-15', not_published: ['2026-11-16'] });
    expect(a.text).toMatch(/\(14 published days\)/);
    expect(a.text).toMatch(/data through 2026-11-15; 2026-11-16 is not published yet \(~03:00 UTC\)/);
  });

  it('the list tools name it as well, and say their data runs through the latest complete day', async () => {
    h.sim.clock.set(EARLY);
    const a = await h.call('get_user_activity', { start_date: '2026-11-10', end_date: '2026-11-16' });
    expect(a.structured).toMatchObject({ start_date: '2026-11-10', end_date: '2026-11-16' });
    expect(a.structured.freshness).toMatchObject({ data_through: '2026-11-15', not_published: ['2026-11-16'] });
    const one = await h.call('list_active_users', { date: '2026-11-16' });
    expect(one.isError, one.text).toBe(false);
    expect(one.structured.freshness.not_published).toEqual(['2026-11-16']);
    expect(one.text).toMatch(/2026-11-16 is not published yet/);
    // The list read at 04:00 is still in the cache: shown, and marked as not final rather than as nobody.
    expect(one.structured.active).toBeGreaterThan(0);
    expect(one.text).toMatch(/^Active on 2026-11-16, not final \(not published yet/);
    expect(one.text).not.toMatch(/nobody is listed|Active on 2026-11-16: 0/);
  });

  it('a range of unpublished days alone has no average, no low and no zero in its text', async () => {
    h.sim.clock.set(EARLY);
    const a = await h.call('get_active_user_counts', { start_date: '2026-11-16', end_date: '2026-11-16' });
    expect(a.isError, a.text).toBe(false);
    expect(a.structured.summary).toMatchObject({ days: 0, average: null, peak: null, low: null, trend: null });
    expect(a.text).toMatch(/\(0 published days\): no published day yet\./);
    expect(a.text).not.toMatch(/avg 0/);
  });
});

describe('on the 1st of a month before the refresh (2026-12-01 01:30 UTC), a named month keeps its meaning', () => {
  it('previous_month is November up to its latest published day, and says which day is still to come', async () => {
    h.sim.clock.set(FIRST);
    const usage = await h.call('get_daily_usage', { range: 'previous_month' });
    expect(usage.isError, usage.text).toBe(false);
    expect(usage.structured).toMatchObject({ start_date: '2026-11-01', end_date: '2026-11-29' });
    expect(usage.structured.freshness).toMatchObject({ data_through: '2026-11-29', not_published: ['2026-11-30'] });
    expect(usage.text).toMatch(/2026-11-30 is not published yet/);
    const period = { start_date: '2026-11-01', end_date: '2026-11-29' };
    const truthDays = (await truth(h.sim, 'daily-usage', period)).daily_usage;
    expect(usage.structured.totals.total_messages).toBe(
      truthDays.reduce((n: number, d: any) => n + d.metrics.total_messages, 0),
    );
    const dau = await h.call('get_active_user_counts', { range: 'previous_month' });
    expect(dau.structured).toMatchObject(period);
    const cost = await h.call('get_cost_analytics', { range: 'previous_month' });
    expect(cost.structured).toMatchObject(period);
    const billed = (await costTruth(h.sim, { ...period, group_by_keys: ['COST_ANALYTICS_GROUP_BY_RESOURCE'] })).length;
    expect(billed).toBeGreaterThan(0);
    const profile = await h.call('get_user_profile', { user: 'ci-pipeline', range: 'previous_month' });
    expect(profile.isError, profile.text).toBe(false);
    expect(profile.structured).toMatchObject(period);
    expect(profile.structured.freshness).toMatchObject({ data_through: '2026-11-29', not_published: ['2026-11-30'] });
    expect(profile.text).toMatch(/2026-11-30 is not published yet/);
    // Credit usage has every day of November.
    const credits = await h.call('get_credit_usage', { range: 'previous_month' });
    expect(credits.structured).toMatchObject({ start_date: '2026-11-01', end_date: '2026-11-30' });
  });

  it('month_to_date says December has no published day yet, never answering November', async () => {
    h.sim.clock.set(FIRST);
    for (const tool of ['get_active_user_counts', 'get_daily_usage', 'get_user_activity', 'get_cost_analytics']) {
      const a = await h.call(tool, { range: 'month_to_date' });
      expect(a.isError, tool).toBe(true);
      expect(a.text, tool).toMatch(/month_to_date: the month 2026-12 has no published day yet/);
      expect(a.text, tool).toMatch(/previous_month/);
      expect(a.text, tool).not.toMatch(/2026-11-01/);
    }
    const profile = await h.call('get_user_profile', { user: 'ci-pipeline', range: 'month_to_date' });
    expect(profile.isError).toBe(true);
    expect(profile.text).toMatch(/2026-12 has no published day yet/);
    const overview = await h.call('get_usage_overview', { range: 'month_to_date' });
    expect(overview.isError).toBe(true);
  });

  it('after the refresh on the 1st, previous_month is all of November and says nothing is to come', async () => {
    h.sim.clock.set('2026-12-01T04:00:00Z');
    const a = await h.call('get_daily_usage', { range: 'previous_month' });
    expect(a.structured).toMatchObject({ start_date: '2026-11-01', end_date: '2026-11-30' });
    expect(a.structured.freshness.not_published).toBeUndefined();
    expect((await h.call('get_daily_usage', { range: 'month_to_date' })).isError).toBe(true);
  });
});

describe('compare_to follows the same date rules as the main range', () => {
  it('refuses a compare_to that ends today with the message a main end_date of today gets', async () => {
    h.sim.clock.set(LATE);
    const main = await h.call('get_daily_usage', { start_date: '2026-11-10', end_date: '2026-11-17' });
    expect(main.isError).toBe(true);
    const compared = await h.call('get_daily_usage', {
      range: 'last_7_days',
      compare_to: { start_date: '2026-11-11', end_date: '2026-11-17' },
    });
    expect(compared.isError).toBe(true);
    const rule = /end_date 2026-11-17 is today; the latest complete day is 2026-11-16 \(UTC\)/;
    expect(main.text).toMatch(rule);
    expect(compared.text).toMatch(new RegExp(`compare_to: ${rule.source}`));
  });

  it('refuses a compare_to beyond the two-year window as the main range would, before anything is sent', async () => {
    h.sim.clock.set(LATE);
    h.sim.clearRequests();
    const a = await h.call('get_cost_analytics', {
      start_date: '2026-09-01',
      end_date: '2026-09-07',
      compare_to: { start_date: '2024-01-01', end_date: '2024-01-07' },
    });
    expect(a.isError).toBe(true);
    expect(a.text).toMatch(/compare_to: Data is kept for 2 years: the earliest day you can ask for is 2024-11-17/);
    expect(requestsTo(h.sim, 'cost-analytics')).toHaveLength(0);
  });

  it('compares published days only, and says which were left out', async () => {
    h.sim.clock.set(EARLY);
    const a = await h.call('get_daily_usage', {
      start_date: '2026-11-10',
      end_date: '2026-11-16',
      compare_to: 'previous_period',
    });
    expect(a.isError, a.text).toBe(false);
    expect(a.structured).toMatchObject({ start_date: '2026-11-10', end_date: '2026-11-16' });
    const c = a.structured.comparison;
    expect(c).toMatchObject({ start_date: '2026-11-04', end_date: '2026-11-09', days: 6, current_days: 6 });
    expect(c.left_out).toEqual(['2026-11-16 (not published yet)']);
    expect(a.text).toMatch(/2026-11-16 \(not published yet\) left out of the comparison/);
  });
});

describe('percent changes come from exact values', () => {
  it('the comparison of average daily users uses the exact averages, not the rounded ones shown', async () => {
    h.sim.clock.set(LATE);
    // Among several periods, those where rounding the averages first would change the percent.
    let differing = 0;
    for (let k = 0; k < 8; k++) {
      const day = (n: number) => `2026-11-${String(n).padStart(2, '0')}`;
      const asked = { start_date: day(10 - k), end_date: day(16 - k) };
      const a = await h.call('get_active_user_counts', { ...asked, compare_to: 'previous_period' });
      expect(a.isError, a.text).toBe(false);
      const now: Day[] = a.structured.days;
      const before: Day[] = (
        await truth(h.sim, 'dau-count', {
          start_date: a.structured.comparison.start_date,
          end_date: a.structured.comparison.end_date,
        })
      ).daily_active_user_counts;
      const average = a.structured.comparison.metrics.find((m: any) => m.name === 'average');
      expect(average.percent, asked.end_date).toBe(exactPercent(now, before));
      const rounded = (x: number) => Math.round(x * 10) / 10;
      const [p, q] = [rounded(sum(now) / 7), rounded(sum(before) / 7)];
      if (Math.round(((p - q) / q) * 1000) / 10 !== exactPercent(now, before)) differing++;
    }
    expect(differing).toBeGreaterThan(0);
  });
});

describe('trends come from exact averages', () => {
  it("get_active_user_counts' change_percent is the exact change between the two weeks, rounded once", async () => {
    h.sim.clock.set(LATE);
    let differing = 0;
    for (let k = 0; k < 10; k++) {
      const asked = { start_date: `2026-10-${String(10 + k).padStart(2, '0')}`, end_date: '' };
      asked.end_date = new Date(Date.parse(`${asked.start_date}T00:00:00Z`) + 13 * 86_400_000)
        .toISOString()
        .slice(0, 10);
      const a = await h.call('get_active_user_counts', asked);
      expect(a.isError, a.text).toBe(false);
      const days: Day[] = a.structured.days;
      const [first, last] = [days.slice(0, 7), days.slice(7)];
      const t = a.structured.summary.trend;
      expect([t.from.start, t.to.end], asked.start_date).toEqual([first[0]!.date, last.at(-1)!.date]);
      expect(t.change_percent, asked.start_date).toBe(exactPercent(last, first));
      const rounded = (x: Day[]) => Math.round((sum(x) / 7) * 10) / 10;
      const [p, q] = [rounded(last), rounded(first)];
      if (Math.round(((p - q) / q) * 1000) / 10 !== t.change_percent) differing++;
    }
    expect(differing).toBeGreaterThan(0);
  });
});
