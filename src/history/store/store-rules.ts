import { nextDailyRefresh, CREDIT_REFRESH_MS } from '../../domain/freshness.js';
import type { DayRange } from '../../domain/dates.js';
import type { Days } from '../../domain/published-days.js';
import { dayToMs } from '../../util/utc-date.js';
import type { Dataset } from './datasets.js';

/** The latest day a dataset stores: the latest published day, or today for credit usage. */
export function lastStorableDay(dataset: Dataset, days: Days): number {
  return dataset.listing.dates.rules === 'credit' ? days.today : days.published;
}

/**
 * When a stored block is fetched again: the last two published days at the next refresh (late corrections),
 * credit usage of the last two days after 90 minutes; older blocks never.
 */
export function blockExpiry(dataset: Dataset, end: number, days: Days, now: number): number | null {
  if (dataset.listing.dates.rules === 'credit' && end >= days.published - 1) return now + CREDIT_REFRESH_MS;
  if (end >= days.published - 1) return nextDailyRefresh(now, days.refreshHour);
  return null;
}

/** First and last day of the calendar month of a day. */
export function monthOf(day: number): DayRange {
  const d = new Date(dayToMs(day));
  const start = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1) / 86_400_000;
  const end = Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 0) / 86_400_000;
  return { start, end };
}

export function isWholeMonth(range: DayRange): boolean {
  const m = monthOf(range.start);
  return m.start === range.start && m.end === range.end;
}
