import { z } from 'zod';
import { defineListing } from '../endpoint.js';
import { dailyPolicy } from '../freshness.js';
import { concat } from '../merge.js';
import { count, isoDate, metricsSchema, rangeMeta } from '../schemas.js';

export const dailyUsageSchema = z.object({
  daily_usage: z.array(z.object({ date: isoDate, metrics: metricsSchema })),
  metadata: z.object({ ...rangeMeta, total_days: count }),
});
export type DailyUsage = z.infer<typeof dailyUsageSchema>;

/** Organization-wide metrics per day over a range; one answer holds every day. */
export const dailyUsage = defineListing({
  name: 'daily-usage',
  method: 'GET',
  params: 'query',
  schema: dailyUsageSchema,
  group: 'general',
  cache: dailyPolicy,
  dates: { rules: 'metrics', takes: 'range' },
  items: (v) => v.daily_usage,
  paging: null,
  merge: concat,
});
