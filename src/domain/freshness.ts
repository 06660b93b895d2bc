import { dayToMs } from '../util/utc-date.js';
import { todayOf, type DayRange } from './dates.js';

const HOUR = 3_600_000;
/** An answer fetched in the hour after the refresh hour, while late corrections may still land, is kept this long at most. */
export const UNSETTLED_TTL_MS = 10 * 60_000;
export const CREDIT_REFRESH_MS = 90 * 60_000;

/** How long an answer may be served from cache, and when the data behind it next changes. */
export interface CachePolicy {
  ttlMs: number;
  /** When the upstream is expected to have newer data (epoch ms), or undefined when unknown. */
  nextRefreshAt: number | undefined;
}

/** The next daily refresh after `now`: today's refresh hour (UTC, --refresh-hour) if still ahead, else tomorrow's. */
export function nextDailyRefresh(now: number, refreshHour: number): number {
  const todayRefresh = dayToMs(todayOf(now)) + refreshHour * HOUR;
  return now < todayRefresh ? todayRefresh : todayRefresh + 24 * HOUR;
}

function inRefreshWindow(now: number, refreshHour: number): boolean {
  const hour = (now - dayToMs(todayOf(now))) / HOUR;
  return hour >= refreshHour && hour < refreshHour + 1;
}

/** Daily endpoints and cost analytics: until the next refresh, but at most 10 minutes in the hour after it. */
export function dailyPolicy(now: number, _days: DayRange | undefined, refreshHour: number): CachePolicy {
  const next = nextDailyRefresh(now, refreshHour);
  const ttlMs = inRefreshWindow(now, refreshHour) ? Math.min(UNSETTLED_TTL_MS, next - now) : next - now;
  return { ttlMs, nextRefreshAt: next };
}

/** credit-usage-by-user: a range touching today or yesterday moves every ~90 minutes; older ranges are daily data. */
export function creditPolicy(now: number, rangeEnd: number, refreshHour: number): CachePolicy {
  if (rangeEnd >= todayOf(now) - 1) return { ttlMs: UNSETTLED_TTL_MS, nextRefreshAt: now + CREDIT_REFRESH_MS };
  return dailyPolicy(now, undefined, refreshHour);
}

/** creditPolicy for a request, by the last of its days. */
export function creditRequestPolicy(now: number, days: DayRange | undefined, refreshHour: number): CachePolicy {
  return creditPolicy(now, days?.end ?? Number.POSITIVE_INFINITY, refreshHour);
}

export function changelogPolicy(): CachePolicy {
  return { ttlMs: UNSETTLED_TTL_MS, nextRefreshAt: undefined };
}

/** What every answer says about its age. Times are ISO 8601. */
export interface Freshness {
  fetched_at: string;
  from_cache: boolean;
  next_refresh_at: string | null;
  /** Where the figures came from: the history store, the upstream now, or the cache; by default live or cache. */
  source?: FreshnessSource;
}

export type FreshnessSource = 'history' | 'live' | 'cache';

export function sourceOf(f: Freshness): FreshnessSource {
  return f.source ?? (f.from_cache ? 'cache' : 'live');
}

/** The freshness of an answer built from several upstream responses: the oldest fetch, the earliest refresh. */
export function combineFreshness(parts: readonly Freshness[]): Freshness {
  if (parts.length === 0) throw new Error('combineFreshness needs at least one part');
  const oldest = parts.reduce((a, b) => (a.fetched_at <= b.fetched_at ? a : b));
  const refreshes = parts.map((p) => p.next_refresh_at).filter((r): r is string => r !== null);
  const sources = new Set(parts.map(sourceOf));
  return {
    fetched_at: oldest.fetched_at,
    from_cache: parts.every((p) => p.from_cache),
    source: sources.size === 1 ? [...sources][0]! : 'live',
    next_refresh_at: refreshes.length ? refreshes.reduce((a, b) => (a <= b ? a : b)) : null,
  };
}
