import type { z } from 'zod';
import { defineListing } from '../endpoint.js';
import { mergeUserActivity } from '../listing/merge.js';
import { count, metricsSchema, withIdentity } from '../schemas.js';

/** Per-identity totals over a range, paged; windows of a long range are summed per identity. */
export const userActivity = defineListing({
  name: 'user-activity',
  paging: { default: 50, max: 100 },
  rows: { users: withIdentity({ active_days: count, metrics: metricsSchema }) },
  counts: { total_days: count, returned_user_count: count },
  merge: mergeUserActivity,
});
export const userActivitySchema = userActivity.schema;
export type UserActivity = z.infer<typeof userActivitySchema>;
