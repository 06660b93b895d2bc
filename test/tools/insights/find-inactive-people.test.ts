import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatDay, parseIsoDay } from '../../../src/util/utc-date.js';
import { storedHarness, type StoredHarness } from '../../helpers/history.js';
import { harness, type Harness } from '../../helpers/mcp.js';
import { YESTERDAY } from '../../helpers/sim.js';

// 35 days without activity, after activity in the 25 days before: through 2026-11-20, inactive since 2026-10-17.
const ARGS = { inactive_days: 35, lookback_days: 60 };
const INACTIVE_SINCE = formatDay(parseIsoDay(YESTERDAY)! - 34);

let live: Harness;
let stored: StoredHarness;
/** Former members of the simulator's organization whose membership ends in the lookback, before the inactive days. */
let stopped: Array<{ email: string; leaveDay: string }>;
/** Members who left during the inactive days: active in them, so not inactive. */
let lateLeavers: string[];

beforeAll(async () => {
  live = await harness({ sim: { users: 300 } });
  stored = await storedHarness({ historyDays: 61, historyMonths: 0 }, { simulator: live.sim });
  const end = parseIsoDay(YESTERDAY)!;
  const users = live.sim.state.org.identities.filter((i) => i.kind === 'user' && i.leaveDay !== Infinity);
  stopped = users
    .filter((i) => i.leaveDay > end - 59 && i.leaveDay <= end - 34)
    .map((i) => ({ email: i.id, leaveDay: formatDay(i.leaveDay) }));
  lateLeavers = users.filter((i) => i.leaveDay > end - 20 && i.leaveDay <= end).map((i) => i.id);
}, 120_000);
afterAll(async () => {
  await stored?.close();
  await live?.close();
});

describe('find_inactive_people', () => {
  it('finds the people who stopped, with their last active day from the history store', async () => {
    expect(stopped.length).toBeGreaterThanOrEqual(2);
    const before = live.sim.requests().length;
    const r = await stored.call('find_inactive_people', ARGS);
    expect(r.isError).toBe(false);
    // The store answers the activity, the daily lists and the credits: only the budget overrides are asked for.
    const asked = live.sim
      .requests()
      .slice(before)
      .map((q) => q.path.split('/').pop());
    expect(asked.filter((p) => p !== 'get-user-budget-overrides')).toEqual([]);
    const out = r.structured;
    expect(out).toMatchObject({ inactive_since: INACTIVE_SINCE, end_date: YESTERDAY });
    expect(out.needs).toBeUndefined();
    const byEmail = new Map(out.people.map((p: any) => [p.user_email, p]));
    for (const { email, leaveDay } of stopped) {
      const p: any = byEmail.get(email);
      expect(p, email).toBeDefined();
      expect(p.last_active_date < leaveDay, email).toBe(true);
      expect(p.last_active_date < INACTIVE_SINCE, email).toBe(true);
      expect(p.active_days).toBeGreaterThan(0);
      // The day named is a day the daily active list names them, checked through another tool.
      const day = await stored.call('list_active_users', { date: p.last_active_date, users: [email] });
      expect(day.structured.total_rows, email).toBe(1);
    }
    for (const email of lateLeavers) expect(byEmail.has(email), email).toBe(false);
    expect(out.count).toBe(out.people.length + out.service_accounts.length);
    expect(out.totals.people).toBe(out.people.length);
    expect(out.totals.credits).toBe([...out.people, ...out.service_accounts].reduce((n, p) => n + p.credits, 0));
    // Longest gone first.
    const days = out.people.map((p: any) => p.last_active_date);
    expect(days).toEqual([...days].sort());
    expect(r.text).toContain(`Inactive since ${INACTIVE_SINCE}`);
  });

  it('answers the same people live, without a store, and says which sync makes the last active day known', async () => {
    const [withStore, without] = await Promise.all([
      stored.call('find_inactive_people', ARGS),
      live.call('find_inactive_people', ARGS),
    ]);
    expect(without.isError).toBe(false);
    const strip = (rows: any[]) =>
      rows.map(({ last_active_date: _d, ...r }) => r).sort((a, b) => (a.user_email < b.user_email ? -1 : 1));
    expect(strip(without.structured.people)).toEqual(strip(withStore.structured.people));
    expect(without.structured.totals).toEqual(withStore.structured.totals);
    expect(without.structured.people.every((p: any) => p.last_active_date === null)).toBe(true);
    expect(without.structured.needs).toMatch(/org-analytics-mcp sync --history-days \d+/);
    expect(without.text).toMatch(/sync --history-days/);
  });

  it('keeps to the users named, and the limit leaves the totals whole', async () => {
    const one = stopped[0]!.email;
    const named = await stored.call('find_inactive_people', { ...ARGS, users: [one] });
    expect(named.structured.people.map((p: any) => p.user_email)).toEqual([one]);
    const all = await stored.call('find_inactive_people', ARGS);
    const first = await stored.call('find_inactive_people', { ...ARGS, limit: 1 });
    expect(first.structured.returned_rows).toBe(1);
    expect(first.structured.count).toBe(all.structured.count);
    expect(first.structured.totals).toEqual(all.structured.totals);
  });

  it('answers the same from a PostgreSQL store', async () => {
    const pg = await storedHarness({ historyDays: 61, historyMonths: 0, engine: 'postgres' }, { simulator: live.sim });
    try {
      const [fromPg, fromSqlite] = await Promise.all([
        pg.call('find_inactive_people', ARGS),
        stored.call('find_inactive_people', ARGS),
      ]);
      expect(fromPg.structured.people).toEqual(fromSqlite.structured.people);
      expect(fromPg.structured.service_accounts).toEqual(fromSqlite.structured.service_accounts);
      expect(fromPg.structured.totals).toEqual(fromSqlite.structured.totals);
      expect(fromPg.structured.needs).toBeUndefined();
    } finally {
      await pg.close();
    }
  }, 120_000);

  // Last: it writes a budget override into the simulator the other tests read.
  it("gives each inactive person's budget override, as get_budget_overrides reads it", async () => {
    const recent = { inactive_days: 2, lookback_days: 10 };
    const before = await stored.call('find_inactive_people', recent);
    const bare = before.structured.people.find((p: any) => !p.budget_override);
    expect(bare, 'someone inactive these two days without an override').toBeDefined();
    const writer = await harness({ simulator: live.sim, config: { confirmWrites: 'never' } });
    try {
      const set = await writer.call('set_budget_overrides', {
        overrides: [{ user_email: bare.user_email, limit: '4321' }],
      });
      expect(set.structured.counts).toEqual({ applied: 1 });
      const after = await stored.call('find_inactive_people', recent);
      const overrides = await stored.call('get_budget_overrides', { limit: 1000 });
      expect(overrides.structured.returned_rows).toBe(overrides.structured.total_rows);
      const limits = new Map(
        overrides.structured.rows.filter((o: any) => o.limit !== '').map((o: any) => [o.user, o.limit]),
      );
      const withOverride = after.structured.people.filter((p: any) => p.budget_override);
      expect(withOverride.map((p: any) => p.user_email)).toContain(bare.user_email);
      for (const p of after.structured.people)
        expect(p.budget_override?.limit, p.user_email).toBe(limits.get(p.user_email));
      expect(after.structured.people.find((p: any) => p.user_email === bare.user_email).budget_override).toEqual({
        resource: 'credits',
        limit: '4321',
      });
    } finally {
      await writer.close();
    }
  });

  it('refuses a lookback no longer than the inactive days', async () => {
    const r = await live.call('find_inactive_people', { inactive_days: 30, lookback_days: 30 });
    expect(r.isError).toBe(true);
    expect(r.text).toMatch(/lookback_days \(30\) must be more than inactive_days \(30\)/);
  });
});
