import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatDay, parseIsoDay } from '../../../src/util/utc-date.js';
import { storedHarness, type StoredHarness } from '../../helpers/history.js';
import { harness, type Harness } from '../../helpers/mcp.js';
import { YESTERDAY } from '../../helpers/sim.js';

// The store holds the daily lists of the 38 days through 2026-11-20 (a Friday) from 2026-10-14 (a Wednesday),
// and the months of September and October whole: weeks are reported from the first whole week, 2026-10-19,
// with the people of the five stored days before it already seen; months from 2026-09-01.
const PUBLISHED = parseIsoDay(YESTERDAY)!;
const DAYS_FROM = PUBLISHED - 32;
const STORED_FROM = PUBLISHED - 37;
const STORE = { historyDays: 38, historyMonths: 2 };

let live: Harness;
let stored: StoredHarness;

beforeAll(async () => {
  live = await harness({ sim: { users: 300 } });
  stored = await storedHarness(STORE, { simulator: live.sim });
}, 120_000);
afterAll(async () => {
  await stored?.close();
  await live?.close();
});

/** The people (emails) the simulator itself has active on a day: its own daily data, not the API. */
function activeOn(day: number): Set<string> {
  const { org, days } = live.sim.state;
  const out = new Set<string>();
  for (const i of days.get(day).ids) {
    const who = org.identities[i]!;
    if (who.kind === 'user') out.add(who.id.toLowerCase());
  }
  return out;
}

interface Expected {
  start_date: string;
  end_date: string;
  active: number;
  new: number;
  returning: number | null;
  retained: number | null;
  partial: boolean;
  history_begins: boolean;
}

/**
 * The figures, computed independently from the simulator's days, for periods [start, end] counted from `from`,
 * with the people active from `seenFrom` to the day before `from` already seen.
 */
function expected(periods: Array<[start: number, end: number]>, from: number, seenFrom = from): Expected[] {
  const seen = new Set<string>();
  for (let d = seenFrom; d < from; d++) for (const p of activeOn(d)) seen.add(p);
  let previous: { active: Set<string>; fresh: Set<string> } | undefined;
  return periods.map(([start, end], i) => {
    const active = new Set<string>();
    for (let d = Math.max(start, from); d <= Math.min(end, PUBLISHED); d++) for (const p of activeOn(d)) active.add(p);
    const fresh = new Set([...active].filter((p) => !seen.has(p)));
    const out = {
      start_date: formatDay(start),
      end_date: formatDay(end),
      active: active.size,
      new: fresh.size,
      returning: previous ? [...active].filter((p) => seen.has(p) && !previous!.active.has(p)).length : null,
      // After the first period, whose newcomers are everyone, nobody is counted as retained.
      retained: previous && i > 1 ? [...previous.fresh].filter((p) => active.has(p)).length : null,
      partial: start < from || end > PUBLISHED,
      history_begins: i === 0,
    };
    for (const p of active) seen.add(p);
    previous = { active, fresh };
    return out;
  });
}

/** Mondays to Sundays from the week of `from` through the week of the latest complete day. */
function weeks(from: number): Array<[number, number]> {
  const monday = (d: number) => d - ((new Date(d * 86_400_000).getUTCDay() + 6) % 7);
  const out: Array<[number, number]> = [];
  for (let m = monday(from); m <= PUBLISHED; m += 7) out.push([m, m + 6]);
  return out;
}

const day = (text: string) => parseIsoDay(text)!;

describe('get_adoption', () => {
  it('counts weeks (Monday to Sunday, UTC) from the stored daily lists, without asking the upstream', async () => {
    const before = live.sim.requests().length;
    const r = await stored.call('get_adoption', { granularity: 'week' });
    expect(r.isError).toBe(false);
    expect(live.sim.requests().length).toBe(before);
    const out = r.structured;
    expect(out.history_from).toBe(formatDay(STORED_FROM));
    expect(out.needs).toBeUndefined();
    expect(out.periods).toEqual(expected(weeks(DAYS_FROM), DAYS_FROM, STORED_FROM));
    for (const p of out.periods) {
      expect(new Date(`${p.start_date}T00:00:00Z`).getUTCDay(), p.start_date).toBe(1);
      expect(day(p.end_date) - day(p.start_date)).toBe(6);
    }
    // The store's first five days are no period of their own; it ends on a Friday: the last week is partial.
    expect(formatDay(DAYS_FROM)).toBe('2026-10-19');
    expect(formatDay(STORED_FROM)).toBe('2026-10-14');
    expect(out.periods.map((p: any) => p.partial)).toEqual([false, false, false, false, true]);
    expect(out.periods[0]).toMatchObject({ history_begins: true, returning: null, retained: null });
    // Who was active in those days is seen already: new in the first whole week are the others.
    expect(out.periods[0].new).toBeLessThan(out.periods[0].active);
    expect(r.text).toContain('history begins');
    // Compact: a tenth of the daily lists it summarizes at most.
    let raw = 0;
    for (let d = DAYS_FROM; d <= PUBLISHED; d++)
      raw += JSON.stringify([...activeOn(d)].map((e) => ({ user_email: e }))).length;
    expect(JSON.stringify(out).length).toBeLessThan(raw / 10);
    expect(r.text).toMatch(/returning: active, seen before, not active in the previous period/);
  });

  it('shows the people who start late as new in the week they first appear', async () => {
    const { org, days } = live.sim.state;
    const r = await stored.call('get_adoption', { granularity: 'week' });
    // Members who joined after the first stored week: each is new in the week of their first active day.
    const late = org.identities.filter(
      (i) => i.kind === 'user' && i.joinDay >= day(r.structured.periods[1].start_date),
    );
    expect(late.length).toBeGreaterThanOrEqual(5);
    const firstActive = late
      .map((i) => {
        const index = org.identities.indexOf(i);
        for (let d = i.joinDay; d <= PUBLISHED; d++) if (days.get(d).ids.includes(index)) return d;
        return undefined;
      })
      .filter((d): d is number => d !== undefined);
    const newAfterStart = r.structured.periods.slice(1).reduce((n: number, p: any) => n + p.new, 0);
    expect(newAfterStart).toBeGreaterThanOrEqual(firstActive.length);
  });

  it('counts people active only in the stored days before the first whole week as seen when they come back', async () => {
    const r = await stored.call('get_adoption', { granularity: 'week' });
    const [first, second] = r.structured.periods;
    const inDays = (start: number, end: number) => {
      const out = new Set<string>();
      for (let d = start; d <= end; d++) for (const p of activeOn(d)) out.add(p);
      return out;
    };
    // The simulator's own people: active in the store's first days, away the next week, back the week after.
    const early = inDays(STORED_FROM, DAYS_FROM - 1);
    const firstWeek = inDays(DAYS_FROM, DAYS_FROM + 6);
    const secondWeek = inDays(DAYS_FROM + 7, DAYS_FROM + 13);
    const back = [...early].filter((p) => !firstWeek.has(p) && secondWeek.has(p));
    expect(back.length).toBeGreaterThanOrEqual(1);
    expect(second.start_date).toBe('2026-10-26');
    // Counted from the first whole week alone, they would be new in the week of 2026-10-26; they are returning.
    const fromFirstWeek = expected(weeks(DAYS_FROM).slice(0, 2), DAYS_FROM)[1]!;
    expect(second.new).toBe(fromFirstWeek.new - back.length);
    expect(second.returning).toBe(fromFirstWeek.returning! + back.length);
    // Nobody active in those days is new in a later week either.
    const fresh = [...secondWeek].filter((p) => !early.has(p) && !firstWeek.has(p));
    expect(second.new).toBe(fresh.length);
    expect(first.new).toBe([...firstWeek].filter((p) => !early.has(p)).length);
    expect(r.text).toMatch(/history from 2026-10-14:/);
  });

  it('counts calendar months from the stored month blocks, the current one partial', async () => {
    const r = await stored.call('get_adoption', { granularity: 'month' });
    const out = r.structured;
    expect(out.history_from).toBe('2026-09-01');
    const months: Array<[number, number]> = [
      [day('2026-09-01'), day('2026-09-30')],
      [day('2026-10-01'), day('2026-10-31')],
      [day('2026-11-01'), day('2026-11-30')],
    ];
    expect(out.periods).toEqual(expected(months, day('2026-09-01')));
    expect(out.periods.map((p: any) => p.partial)).toEqual([false, false, true]);
  });

  it('counts months from the first whole one, the stored days of the month before counted as seen', async () => {
    const days = await storedHarness({ historyDays: 22, historyMonths: 0 }, { simulator: live.sim });
    try {
      const r = await days.call('get_adoption', { granularity: 'month' });
      expect(r.isError, r.text).toBe(false);
      // October is stored from the 30th only: November is the first month whole so far, October's two days seen.
      expect(r.structured.history_from).toBe('2026-10-30');
      const november = expected([[day('2026-11-01'), day('2026-11-30')]], day('2026-11-01'), day('2026-10-30'));
      expect(r.structured.periods).toEqual(november);
      expect(november[0]!.new).toBeLessThan(november[0]!.active);
    } finally {
      await days.close();
    }
  }, 60_000);

  it('keeps the figures of a later start, and says which sync reaches an earlier one', async () => {
    const all = await stored.call('get_adoption', { granularity: 'week' });
    const later = await stored.call('get_adoption', {
      granularity: 'week',
      start_date: all.structured.periods[2].end_date,
    });
    expect(later.structured.periods).toEqual(all.structured.periods.slice(2));
    const earlier = await stored.call('get_adoption', { granularity: 'week', start_date: '2026-09-01' });
    expect(earlier.structured.periods).toEqual(all.structured.periods);
    expect(earlier.structured.needs).toMatch(
      /begins on 2026-10-14, its first whole week on 2026-10-19: .*org-analytics-mcp sync --history-days 82/,
    );
  });

  it('answers the same from a PostgreSQL store', async () => {
    const pg = await storedHarness({ ...STORE, engine: 'postgres' }, { simulator: live.sim });
    try {
      for (const granularity of ['week', 'month']) {
        const [fromPg, fromSqlite] = await Promise.all([
          pg.call('get_adoption', { granularity }),
          stored.call('get_adoption', { granularity }),
        ]);
        expect(fromPg.structured.periods, granularity).toEqual(fromSqlite.structured.periods);
        expect(fromPg.structured.history_from).toBe(fromSqlite.structured.history_from);
      }
    } finally {
      await pg.close();
    }
  }, 120_000);

  it('without a store, counts active people live and says which sync makes the rest known', async () => {
    const r = await live.call('get_adoption', { granularity: 'week' });
    expect(r.isError).toBe(false);
    const out = r.structured;
    expect(out.history_from).toBeNull();
    const last = weeks(PUBLISHED).at(-1)![0];
    const four = [3, 2, 1, 0].map((k): [number, number] => [last - 7 * k, last - 7 * k + 6]);
    const want = expected(four, four[0]![0]).map((p) => ({
      ...p,
      new: null,
      returning: null,
      retained: null,
      history_begins: false,
    }));
    expect(out.periods).toEqual(want);
    expect(out.needs).toMatch(
      /new, returning and retained need the history store: run `org-analytics-mcp sync --history-days 26`/,
    );
    expect(r.text).toMatch(/live \(no history\)/);
  });

  it('refuses an end not complete yet, and a long live range', async () => {
    const late = await live.call('get_adoption', { end_date: formatDay(PUBLISHED + 1) });
    expect(late.isError).toBe(true);
    expect(late.text).toMatch(/not complete yet; the latest complete day is 2026-11-20/);
    const long = await live.call('get_adoption', { start_date: '2026-06-01' });
    expect(long.isError).toBe(true);
    expect(long.text).toMatch(/at most 8 weeks are counted live.*sync --history-days/);
  });
});
