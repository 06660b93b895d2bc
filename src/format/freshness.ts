import type { Freshness } from '../upstream/freshness.js';
import { z } from 'zod';

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
  const parts = [`data through ${f.data_through}`];
  if (f.next_refresh_at) {
    const at = new Date(f.next_refresh_at);
    const hhmm = at.toISOString().slice(11, 16);
    parts.push(hhmm === '02:00' ? 'next refresh ~02:00 UTC' : `next refresh ~${hhmm} UTC`);
  }
  if (f.from_cache) parts.push(`served from cache (fetched ${f.fetched_at.slice(0, 16).replace('T', ' ')} UTC)`);
  return parts.join('; ');
}
