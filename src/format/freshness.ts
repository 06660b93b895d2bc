import type { Freshness } from '../upstream/freshness.js';
import { z } from 'zod';
import { formatDay, parseIsoDay } from '../util/utc-date.js';

export const freshnessSchema = z.object({
  data_through: z.string(),
  fetched_at: z.string(),
  from_cache: z.boolean(),
  next_refresh_at: z.string().nullable(),
});
export type FreshnessOut = z.infer<typeof freshnessSchema>;

export function freshnessOut(f: Freshness, dataThrough: string): FreshnessOut {
  return {
    data_through: dataThrough,
    fetched_at: f.fetched_at,
    from_cache: f.from_cache,
    next_refresh_at: f.next_refresh_at,
  };
}

/** "data through 2026-11-20; next refresh ~02:00 UTC; served from cache" */
export function freshnessLine(f: FreshnessOut): string {
  const parts = [`data through ${f.data_through}${notInYet(f)}`];
  if (f.next_refresh_at) {
    const at = new Date(f.next_refresh_at);
    const hhmm = at.toISOString().slice(11, 16);
    parts.push(hhmm === '02:00' ? 'next refresh ~02:00 UTC' : `next refresh ~${hhmm} UTC`);
  }
  if (f.from_cache) parts.push(`served from cache (fetched ${f.fetched_at.slice(0, 16).replace('T', ' ')} UTC)`);
  return parts.join('; ');
}

/**
 * Between midnight and the ~02:00 UTC refresh, yesterday may be asked for but has no data yet: an answer
 * that ends on it says so, rather than let an empty day read as a drop.
 */
function notInYet(f: FreshnessOut): string {
  if (!f.next_refresh_at) return '';
  const refresh = f.next_refresh_at.slice(0, 10);
  const fetchedToday = f.fetched_at.slice(0, 10) === refresh;
  const yesterday = formatDay(parseIsoDay(refresh)! - 1);
  return fetchedToday && f.next_refresh_at.slice(11, 16) === '02:00' && f.data_through === yesterday
    ? ` (its figures arrive at ~02:00 UTC: until then ${yesterday} reads as empty)`
    : '';
}
