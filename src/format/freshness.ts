import { sourceOf, type Freshness } from '../domain/freshness.js';
import { z } from 'zod';

export const freshnessSchema = z.object({
  data_through: z.string(),
  fetched_at: z.string(),
  from_cache: z.boolean(),
  next_refresh_at: z.string().nullable(),
  source: z.enum(['history', 'live', 'cache']),
});
/** The freshness of an answer to dates asked for: also the days among them whose figures are not published yet. */
export const askedFreshnessSchema = freshnessSchema.extend({ not_published: z.array(z.string()).optional() });
export type FreshnessOut = z.infer<typeof askedFreshnessSchema>;

/** `notPublished`: the days asked for that come after `dataThrough` because they are not published yet. */
export function freshnessOut(f: Freshness, dataThrough: string, notPublished: readonly string[] = []): FreshnessOut {
  return {
    data_through: dataThrough,
    fetched_at: f.fetched_at,
    from_cache: f.from_cache,
    next_refresh_at: f.next_refresh_at,
    source: sourceOf(f),
    ...(notPublished.length ? { not_published: [...notPublished] } : {}),
  };
}

/** "2026-11-16", "2026-11-16 and 2026-11-17", "2026-11-16..2026-11-18" */
export function daysText(days: readonly string[]): string {
  if (days.length <= 2) return days.join(' and ');
  return `${days[0]}..${days.at(-1)}`;
}

/** "data through 2026-11-20; next refresh ~03:00 UTC; served from cache" */
export function freshnessLine(f: FreshnessOut): string {
  const parts = [`data through ${f.data_through}`];
  const next = f.next_refresh_at ? `~${f.next_refresh_at.slice(11, 16)} UTC` : undefined;
  if (f.not_published?.length) {
    const one = f.not_published.length === 1;
    parts.push(`${daysText(f.not_published)} ${one ? 'is' : 'are'} not published yet${next ? ` (${next})` : ''}`);
  }
  if (next) parts.push(`next refresh ${next}`);
  if (f.source === 'history') parts.push('from the history store');
  else if (f.from_cache) parts.push(`served from cache (fetched ${f.fetched_at.slice(0, 16).replace('T', ' ')} UTC)`);
  return parts.join('; ');
}
