import { z } from 'zod';
import { defineListing } from '../endpoint.js';
import { dailyPolicy } from '../freshness.js';
import { concat } from '../merge.js';
import { count, isoDate, rangeMeta } from '../schemas.js';

export const dauCountSchema = z.object({
  daily_active_user_counts: z.array(z.object({ date: isoDate, user_count: count })),
  metadata: z.object({ ...rangeMeta, total_days: count }),
});
export type DauCount = z.infer<typeof dauCountSchema>;

/** Active identities per day over a range; one answer holds every day. */
export const dauCount = defineListing({
  name: 'dau-count',
  method: 'GET',
  params: 'query',
  schema: dauCountSchema,
  group: 'general',
  cache: dailyPolicy,
  dates: { rules: 'metrics', takes: 'range' },
  items: (v) => v.daily_active_user_counts,
  paging: null,
  merge: concat,
});
