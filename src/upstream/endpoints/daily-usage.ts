import type { z } from 'zod';
import { defineDailySeries } from '../endpoint.js';
import { metricsSchema } from '../schemas.js';

/** Organization-wide metrics per day over a range; one answer holds every day. */
export const dailyUsage = defineDailySeries('daily-usage', 'daily_usage', { metrics: metricsSchema });
export const dailyUsageSchema = dailyUsage.schema;
export type DailyUsage = z.infer<typeof dailyUsageSchema>;
