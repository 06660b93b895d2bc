import type { DayRange } from '../domain/dates.js';
import { count, minus, unite, type Bits } from './people-bits.js';
import { dayFromMs, dayToMs, formatDay, weekday } from '../util/utc-date.js';

export type AdoptionGranularity = 'week' | 'month';

/** The calendar period holding a day: its week (Monday to Sunday, UTC) or its month. */
export function periodOf(day: number, granularity: AdoptionGranularity): DayRange {
  if (granularity === 'month') {
    const d = new Date(dayToMs(day));
    const [y, m] = [d.getUTCFullYear(), d.getUTCMonth()];
    return { start: dayFromMs(Date.UTC(y, m, 1)), end: dayFromMs(Date.UTC(y, m + 1, 0)) };
  }
  const monday = day - ((weekday(day) + 6) % 7);
  return { start: monday, end: monday + 6 };
}

/** The whole periods that overlap [start, end], oldest first. */
export function periodsOver(range: DayRange, granularity: AdoptionGranularity): DayRange[] {
  const out: DayRange[] = [];
  for (let p = periodOf(range.start, granularity); p.start <= range.end; p = periodOf(p.end + 1, granularity))
    out.push(p);
  return out;
}

/** One period's figures, as answered. */
export interface PeriodFigures {
  start_date: string;
  end_date: string;
  active: number;
  new: number | null;
  returning: number | null;
  retained: number | null;
  partial: boolean;
  history_begins: boolean;
}

/** A period and the people active in it (read over `days`: the part of it the data covers). */
export interface ActivePeriod {
  period: DayRange;
  days: DayRange;
  active: Bits;
}

/** The people behind a period's figures: each set's count is the figure (null: not counted). */
export interface PeriodSets {
  days: DayRange;
  active: Bits;
  fresh: Bits | null;
  returning: Bits | null;
  retained: Bits | null;
}

/**
 * The cohort figures of consecutive periods, oldest first. `counted`: whether history begins at the first
 * period (with `historyBegins`, its first day); false: live, active people only. `seenBefore`: the people
 * active in the stored days before the first period (a part of a period, not reported), already seen.
 * - new: active, and not active in any earlier period (or stored day) since history begins;
 * - returning: active, active in some earlier period, but not in the one just before;
 * - retained: of the previous period's newcomers, how many are active in this one; null after the period
 *   where history begins, whose "newcomers" are nearly everyone.
 * `sets`, when given, receives each period's people behind its figures.
 */
export function cohorts(
  periods: readonly ActivePeriod[],
  historyBegins: number | null,
  seenBefore?: Bits,
  sets?: PeriodSets[],
): PeriodFigures[] {
  const size = Math.max(0, seenBefore?.length ?? 0, ...periods.map((p) => p.active.length));
  const seen = seenBefore ? unite(new Uint32Array(size), [seenBefore]) : new Uint32Array(size);
  let previous: { active: Bits; fresh: Bits; begins: boolean } | undefined;
  return periods.map(({ period, days, active }) => {
    const partial = days.start > period.start || days.end < period.end;
    const base = {
      start_date: formatDay(period.start),
      end_date: formatDay(period.end),
      active: count(active),
      partial,
    };
    if (historyBegins === null) {
      sets?.push({ days, active, fresh: null, returning: null, retained: null });
      return { ...base, new: null, returning: null, retained: null, history_begins: false };
    }
    const fresh = minus(active, seen);
    const out = {
      ...base,
      new: count(fresh),
      returning: previous ? count(active, seen, previous.active) : null,
      retained: previous && !previous.begins ? count(previous.fresh, active) : null,
      history_begins: historyBegins >= period.start && historyBegins <= period.end,
    };
    // The people behind each figure, for figures by group (issue 34).
    sets?.push({
      days,
      active,
      fresh,
      returning: previous ? minus(minus(active, fresh), previous.active) : null,
      retained: previous && !previous.begins ? minus(previous.fresh, minus(previous.fresh, active)) : null,
    });
    unite(seen, [active]);
    previous = { active, fresh, begins: out.history_begins };
    return out;
  });
}

/**
 * The first period reported: the first whole one the store holds, where history begins. A part of a period
 * before it is not reported (a few days' figures beside whole periods'), but its people count as seen: left
 * out, everyone active only then would be "new" in the next period. Only when no period is whole is a part
 * reported.
 */
export function counted(stored: number | null, g: AdoptionGranularity, end: number): number | null {
  if (stored === null) return null;
  const period = periodOf(stored, g);
  return period.start === stored || period.end >= end ? stored : period.end + 1;
}

/** The sync that makes the periods from `from` on answerable from the store. */
export function syncFor(granularity: AdoptionGranularity, from: number, published: number): string {
  if (granularity === 'week') return `org-analytics-mcp sync --history-days ${published - from + 1}`;
  let months = 0;
  for (let m = periodOf(published, 'month'); m.start > from; m = periodOf(m.start - 1, 'month')) months++;
  return `org-analytics-mcp sync --history-months ${Math.max(1, months)}`;
}
