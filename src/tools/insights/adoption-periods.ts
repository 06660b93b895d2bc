import type { DayRange } from '../../domain/dates.js';
import { dayFromMs, dayToMs, formatDay, weekday } from '../../util/utc-date.js';

export type Granularity = 'week' | 'month';

/** The calendar period holding a day: its week (Monday to Sunday, UTC) or its month. */
export function periodOf(day: number, granularity: Granularity): DayRange {
  if (granularity === 'month') {
    const d = new Date(dayToMs(day));
    const [y, m] = [d.getUTCFullYear(), d.getUTCMonth()];
    return { start: dayFromMs(Date.UTC(y, m, 1)), end: dayFromMs(Date.UTC(y, m + 1, 0)) };
  }
  const monday = day - ((weekday(day) + 6) % 7);
  return { start: monday, end: monday + 6 };
}

/** The whole periods that overlap [start, end], oldest first. */
export function periodsOver(range: DayRange, granularity: Granularity): DayRange[] {
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
  active: ReadonlySet<string>;
}

/**
 * The cohort figures of consecutive periods. `seen`: everyone active from where history begins up to the
 * first period (mutated as the periods pass), or null when there is no history (live: active only).
 * `before`: the period just before the first, with its newcomers, when history holds it.
 * - new: active, and not active in any earlier period since history begins;
 * - returning: active, active in some earlier period, but not in the one just before;
 * - retained: of the previous period's newcomers, how many are active in this one.
 */
export function cohorts(
  periods: readonly ActivePeriod[],
  seen: Set<string> | null,
  before: { active: ReadonlySet<string>; fresh: ReadonlySet<string> } | null,
  historyBegins: number | null,
): PeriodFigures[] {
  let previous = before;
  return periods.map(({ period, days, active }) => {
    const partial = days.start > period.start || days.end < period.end;
    const base = { start_date: formatDay(period.start), end_date: formatDay(period.end), active: active.size, partial };
    if (!seen) return { ...base, new: null, returning: null, retained: null, history_begins: false };
    const fresh = new Set<string>();
    let returning = 0;
    let retained = 0;
    for (const who of active) {
      if (!seen.has(who)) fresh.add(who);
      else if (previous && !previous.active.has(who)) returning++;
      if (previous?.fresh.has(who)) retained++;
    }
    for (const who of fresh) seen.add(who);
    const out = {
      ...base,
      new: fresh.size,
      returning: previous ? returning : null,
      retained: previous ? retained : null,
      history_begins: historyBegins !== null && historyBegins >= period.start && historyBegins <= period.end,
    };
    previous = { active, fresh };
    return out;
  });
}
