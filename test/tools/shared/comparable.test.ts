import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { harness, truth, truthAll, type Harness } from '../../helpers/mcp.js';
import { TODAY } from '../../helpers/sim.js';
import { R30, TOOL_TEST_USERS, costTruth, idOf, micro } from '../../helpers/tools.js';

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

  it('get_cost_analytics grouped by user: who rose and fell the most in billed USD, to the cent', async () => {
    const by = { group_by: ['user'] };
    const a = await h.call('get_cost_analytics', { ...R30, ...by, compare_to: 'previous_period' });
    expect(a.isError, a.text).toBe(false);
    const c = a.structured.comparison;
    expect(c).toMatchObject({ ...PREVIOUS, basis: 'totals' });
    // Per identity, billed USD in whole cents (half up), from the raw endpoint; bots and deleted accounts have no name.
    const cents = async (q: Record<string, string>) => {
      const m = new Map<string, number>();
      for (const p of await costTruth(h.sim, { ...q, group_by_keys: ['COST_ANALYTICS_GROUP_BY_USER'] })) {
        const u = p.group_by_values.user_info;
        const id = u?.user_email ?? u?.service_account_name;
        if (id) m.set(id, Number((micro(p.cost_metrics.billed_amount_usd) + 5000n) / 10000n));
      }
      return m;
    };
    const expected = expectedMovers(await cents(R30), await cents(PREVIOUS));
    const asCents = (rs: any[]) => rs.map((r) => [r.user, Math.round(r.change * 100)]);
    expect(asCents(c.movers.rose)).toEqual(expected.rose);
    expect(asCents(c.movers.fell)).toEqual(expected.fell);
    expect(c.movers.by).toBe('billed_amount_usd');
    expect(a.text).toMatch(/Movers by billed_amount_usd/);
    // Not grouped by user: totals only, no movers.
    const totals = await h.call('get_cost_analytics', { ...R30, compare_to: 'previous_period' });
    expect(totals.structured.comparison.movers).toBeUndefined();
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

/** Per identity, the sum of one value over a period, straight from the raw endpoint. */
async function perIdentity(path: string, key: string, q: Record<string, string>, value: (r: any) => number) {
  const m = new Map<string, number>();
  for (const r of await truthAll(h.sim, path, key, q)) m.set(idOf(r), (m.get(idOf(r)) ?? 0) + value(r));
  return m;
}

/** Who rose and fell the most, independently: per day when the lengths differ, rounded to cents as shown. */
function expectedMovers(now: Map<string, number>, before: Map<string, number>, days = [1, 1]) {
  const r2 = (x: number) => Math.round(x * 100) / 100;
  const rows = [...new Set([...now.keys(), ...before.keys()])].map((id) => {
    const change = r2(r2((now.get(id) ?? 0) / days[0]!) - r2((before.get(id) ?? 0) / days[1]!));
    return [id, change] as [string, number];
  });
  const by = (x: [string, number], y: [string, number]) => (x[0] < y[0] ? -1 : 1);
  return {
    rose: rows
      .filter(([, c]) => c > 0)
      .sort((x, y) => y[1] - x[1] || by(x, y))
      .slice(0, 5),
    fell: rows
      .filter(([, c]) => c < 0)
      .sort((x, y) => x[1] - y[1] || by(x, y))
      .slice(0, 5),
  };
}

describe('compare_to compares complete days only', () => {
  // The frozen clock is 2026-11-21T10:00Z: credit usage's last_7_days ends today, partially.
  const WEEK = { start_date: '2026-11-15', end_date: '2026-11-20' };
  const CREDITS = ['credit-usage-by-user', 'records'] as const;
  const credits = (r: any) => r.credits_consumed;

  it('get_credit_usage leaves partial today out of both sides, and says so', async () => {
    const a = await h.call('get_credit_usage', { range: 'last_7_days', compare_to: 'previous_period' });
    expect(a.isError, a.text).toBe(false);
    // The answer itself still covers today.
    expect(a.structured).toMatchObject({ start_date: '2026-11-15', end_date: TODAY, includes_today: true });
    const c = a.structured.comparison;
    const before = { start_date: '2026-11-09', end_date: '2026-11-14' };
    expect(c).toMatchObject({ ...before, days: 6, current_days: 6, basis: 'totals', left_out: ['today (partial)'] });
    const [now, then] = [await perIdentity(...CREDITS, WEEK, credits), await perIdentity(...CREDITS, before, credits)];
    const sum = (m: Map<string, number>) => [...m.values()].reduce((n, v) => n + v, 0);
    expect(c.metrics.find((m: any) => m.name === 'credits_consumed')).toMatchObject({
      current: String(sum(now)),
      previous: String(sum(then)),
      absolute: String(sum(now) - sum(then)),
    });
    expect(c.metrics.find((m: any) => m.name === 'users')).toMatchObject({
      current: String(now.size),
      previous: String(then.size),
    });
    const movers = expectedMovers(now, then);
    expect(c.movers.rose.map((r: any) => [r.user, r.change])).toEqual(movers.rose);
    expect(c.movers.fell.map((r: any) => [r.user, r.change])).toEqual(movers.fell);
    expect(a.text).toMatch(/vs 2026-11-09\.\.2026-11-14 \(totals\).*today \(partial\) left out of the comparison/s);
  });

  it('get_credit_usage against the year before: the same complete days', async () => {
    const a = await h.call('get_credit_usage', { range: 'last_7_days', compare_to: 'previous_year' });
    const c = a.structured.comparison;
    expect(c).toMatchObject({ start_date: '2025-11-15', end_date: '2025-11-20', days: 6, current_days: 6 });
    expect(c.left_out).toEqual(['today (partial)']);
  });

  it('leaves the comparison alone when no side includes today', async () => {
    const a = await h.call('get_credit_usage', { ...R30, compare_to: 'previous_period' });
    expect(a.structured.comparison).toMatchObject({ days: 30, current_days: 30, basis: 'totals' });
    expect(a.structured.comparison.left_out).toBeUndefined();
    expect(a.text).not.toMatch(/left out/);
  });

  it('leaves today out of a compare_to period that ends today, too', async () => {
    const earlier = { start_date: '2026-11-08', end_date: '2026-11-14' };
    const a = await h.call('get_credit_usage', {
      ...earlier,
      compare_to: { start_date: '2026-11-15', end_date: TODAY },
    });
    const c = a.structured.comparison;
    expect(c).toMatchObject({ ...WEEK, days: 6, current_days: 7, basis: 'per_day' });
    expect(c.left_out).toEqual(['today (partial)', 'users (distinct count, periods differ in length)']);
    const week = await perIdentity(...CREDITS, WEEK, credits);
    const total = [...week.values()].reduce((n, v) => n + v, 0);
    const credited = c.metrics.find((m: any) => m.name === 'credits_consumed');
    expect(credited.previous).toBe((Math.round((total * 100) / 6) / 100).toFixed(2));
  });

  it('refuses a comparison of today alone, which has no complete day', async () => {
    const a = await h.call('get_credit_usage', { start_date: TODAY, end_date: TODAY, compare_to: 'previous_period' });
    expect(a.isError).toBe(true);
    expect(a.text).toMatch(/complete days/);
  });
});

describe('compare_to over periods of different lengths', () => {
  const MONTH = { start_date: '2026-09-01', end_date: '2026-09-30' };
  const WEEK = { start_date: '2026-11-14', end_date: '2026-11-20' };

  it('get_user_activity leaves out the distinct count, and orders the movers by their per-day change', async () => {
    const a = await h.call('get_user_activity', { range: 'last_7_days', compare_to: MONTH });
    const c = a.structured.comparison;
    expect(c).toMatchObject({ ...MONTH, days: 30, current_days: 7, basis: 'per_day' });
    expect(c.metrics.map((m: any) => m.name)).not.toContain('active_users');
    expect(c.left_out).toEqual(['active_users (distinct count, periods differ in length)']);
    expect(c.metrics.map((m: any) => m.name)).toContain('active_user_days');
    const messages = (u: any) => u.metrics.total_messages;
    const movers = expectedMovers(
      await perIdentity('user-activity', 'users', WEEK, messages),
      await perIdentity('user-activity', 'users', MONTH, messages),
      [7, 30],
    );
    expect(c.movers.rose.map((r: any) => [r.user, r.change])).toEqual(movers.rose);
    expect(c.movers.fell.map((r: any) => [r.user, r.change])).toEqual(movers.fell);
    const changes = (rs: any[]) => rs.map((r) => r.change);
    expect(changes(c.movers.rose)).toEqual([...changes(c.movers.rose)].sort((x, y) => y - x));
    expect(changes(c.movers.fell)).toEqual([...changes(c.movers.fell)].sort((x, y) => x - y));
    expect(a.text).toMatch(/active_users \(distinct count, periods differ in length\) left out of the comparison/);
    expect(a.text).not.toMatch(/active_users \d/);
  });

  it('get_credit_usage leaves out its count of users', async () => {
    const a = await h.call('get_credit_usage', { ...WEEK, compare_to: MONTH });
    const c = a.structured.comparison;
    expect(c).toMatchObject({ basis: 'per_day', current_days: 7, days: 30 });
    expect(c.metrics.map((m: any) => m.name)).toEqual(['credits_consumed']);
    expect(c.left_out).toEqual(['users (distinct count, periods differ in length)']);
  });

  it('keeps the distinct count when the lengths match', async () => {
    const a = await h.call('get_user_activity', { ...WEEK, compare_to: 'previous_period' });
    expect(a.structured.comparison.metrics.map((m: any) => m.name)).toContain('active_users');
    expect(a.structured.comparison.left_out).toBeUndefined();
  });
});
