import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decideAfterSync } from '../../src/alerts/after-sync.js';
import { INACTIVE_DAYS, inactiveCandidate } from '../../src/alerts/decide-seats.js';
import { storedHarness, type StoredHarness } from '../helpers/history.js';
import { truthAll } from '../helpers/mcp.js';
import { addDays } from '../helpers/sim.js';
import { idOf } from '../helpers/tools.js';

// A Monday, published through the Sunday before, 9 days after the organization's anchor day: two of its planted
// leavers left 30 to 37 days before it.
const MONDAY = '2026-11-30';
const END = '2026-11-29';

let h: StoredHarness;
const signal = new AbortController().signal;
const reader = () => ({
  client: h.upstream,
  digests: h.history.source.digest,
  config: h.deps.config,
  signal,
  progress: () => {},
});

/** Who the simulator lists as active in a range (user-activity omits the inactive). */
const activeIn = async (start: number, end: number) =>
  new Set(
    (
      await truthAll(h.sim, 'user-activity', 'users', {
        start_date: addDays(END, -start),
        end_date: addDays(END, -end),
      })
    ).map(idOf),
  );

beforeAll(async () => {
  h = await storedHarness(
    { historyDays: 92, historyMonths: 0 },
    { sim: { users: 150, now: `${MONDAY}T10:00:00.000Z`, anchorDate: '2026-11-21' } },
  );
}, 180_000);
afterAll(() => h?.close());

describe('seats.inactive, the weekly digest', () => {
  it('on a Monday: who became inactive for 30 days in the past week, once a week', async () => {
    const digest = await inactiveCandidate(reader());
    // Active in the week before the 30 days, and not in the 30 days.
    const [week, recent] = await Promise.all([
      activeIn(INACTIVE_DAYS + 6, INACTIVE_DAYS),
      activeIn(INACTIVE_DAYS - 1, 0),
    ]);
    const expected = [...week].filter((id) => !recent.has(id)).sort();
    expect(expected.length).toBeGreaterThan(0);
    expect(digest).toBeDefined();
    const data = digest!.data as any;
    const listed = [
      ...data.people.map((p: any) => p.user_email),
      ...data.service_accounts.map((s: any) => s.service_account_name),
    ].sort();
    expect(listed).toEqual(expected);
    expect(digest).toMatchObject({
      type: 'seats.inactive',
      dedupKey: `seats.inactive:organization:${MONDAY}`,
      data: {
        week_of: MONDAY,
        inactive_days: 30,
        inactive_since: addDays(END, -29),
        through: END,
        count: expected.length,
      },
    });
    for (const p of data.people)
      expect(p.last_active_date >= addDays(END, -36) && p.last_active_date < addDays(END, -29)).toBe(true);
    expect([...digest!.scope.identities!].sort()).toEqual(
      expected.map((id) => (id.includes('@') ? `u:${id.toLowerCase()}` : `s:${id}`)).sort(),
    );
    // The sync's decisions include it on a Monday.
    const decided = await decideAfterSync(
      { ...h, client: h.upstream, config: h.deps.config, log: h.deps.log },
      [],
      signal,
    );
    expect(decided.filter((c) => c.type === 'seats.inactive')).toEqual([digest]);
  });

  it("any other day of the week: the same week's digest, keyed by its Monday (a week whose Monday had no sync)", async () => {
    const monday = await inactiveCandidate(reader());
    expect(monday).toBeDefined();
    for (const day of [1, 6]) {
      h.sim.clock.set(`${addDays(MONDAY, day)}T10:00:00.000Z`);
      expect(await inactiveCandidate(reader())).toEqual(monday);
    }
    // The next Monday starts the next week.
    h.sim.clock.set(`${addDays(MONDAY, 7)}T10:00:00.000Z`);
    try {
      const next = await inactiveCandidate(reader());
      if (next) expect(next.dedupKey).toBe(`seats.inactive:organization:${addDays(MONDAY, 7)}`);
    } finally {
      h.sim.clock.set(`${MONDAY}T10:00:00.000Z`);
    }
  });
});
