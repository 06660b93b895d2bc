import type { z } from 'zod';
import { defineListing } from '../endpoint.js';
import { addMetricsTo, identityKey, type IdentityRef } from '../listing/merge.js';
import { count, metricsSchema, withIdentity, type Metrics } from '../schemas.js';

/** Per-identity totals: metrics and active_days summed, in order of first appearance. */
export function mergeUserActivity<T extends IdentityRef & { active_days: number; metrics: Metrics }>(
  windows: T[][],
): T[] {
  const byKey = new Map<string, T>();
  // Sums are copies made here, added to in place: the rows given are never changed.
  const sums = new Set<T>();
  for (const rows of windows) {
    for (const row of rows) {
      const key = identityKey(row);
      const seen = byKey.get(key);
      if (!seen) {
        byKey.set(key, row);
        continue;
      }
      const sum = sums.has(seen) ? seen : { ...seen, metrics: { ...seen.metrics } };
      sum.active_days += row.active_days;
      addMetricsTo(sum.metrics, row.metrics);
      if (sum !== seen) {
        sums.add(sum);
        byKey.set(key, sum);
      }
    }
  }
  return [...byKey.values()];
}

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
