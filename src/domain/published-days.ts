import { dayFromMs, dayToMs, formatDay } from '../util/utc-date.js';

/**
 * The latest complete day, one rule for every answer, the cache and the warm-up: a day's figures count as
 * published from the refresh hour (UTC) of the next day, by default 03:00, an hour after the upstream's
 * ~02:00 so that late corrections are in. --refresh-hour changes it.
 */
export const DEFAULT_REFRESH_HOUR_UTC = 3;

/**
 * The days a request is resolved against: today (UTC), the latest day whose daily figures are published
 * (yesterday from the refresh hour, the day before yesterday until then), and that hour.
 */
export interface Days {
  today: number;
  published: number;
  refreshHour: number;
  /** The earliest day the history store holds, when it holds days older than the upstream keeps. */
  storedFrom?: number;
}

export function daysAt(nowMs: number, refreshHour: number): Days {
  const today = dayFromMs(nowMs);
  const beforeRefresh = nowMs - dayToMs(today) < refreshHour * 3_600_000;
  return { today, published: beforeRefresh ? today - 2 : today - 1, refreshHour };
}

/** "~03:00 UTC" */
export const hourText = (hour: number) => `~${String(hour).padStart(2, '0')}:00 UTC`;

/** "2026-11-24 is published at ~03:00 UTC on 2026-11-25" */
export function publishedAt(day: number, days: Days): string {
  return `${formatDay(day)} is published at ${hourText(days.refreshHour)} on ${formatDay(day + 1)}`;
}
