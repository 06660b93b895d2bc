import { z } from 'zod';
import { defineListing } from '../endpoint.js';
import { dailyPolicy } from '../freshness.js';
import { mergeUserActivity } from '../merge.js';
import { count, metricsSchema, paginationSchema, rangeMeta, withIdentity } from '../schemas.js';

export const userActivitySchema = z.object({
  users: z.array(withIdentity({ active_days: count, metrics: metricsSchema })),
  pagination: paginationSchema,
  metadata: z.object({ ...rangeMeta, total_days: count, returned_user_count: count }),
});
export type UserActivity = z.infer<typeof userActivitySchema>;

/** Per-identity totals over a range, paged; windows of a long range are summed per identity. */
export const userActivity = defineListing({
  name: 'user-activity',
  method: 'GET',
  params: 'query',
  schema: userActivitySchema,
  group: 'general',
  cache: dailyPolicy,
  dates: { rules: 'metrics', takes: 'range' },
  items: (v) => v.users,
  paging: { default: 50, max: 100 },
  merge: mergeUserActivity,
});
