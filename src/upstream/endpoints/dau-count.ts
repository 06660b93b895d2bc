import type { z } from 'zod';
import { defineDailySeries } from '../endpoint.js';
import { count } from '../schemas.js';

/** Active identities per day over a range; one answer holds every day. */
export const dauCount = defineDailySeries('dau-count', 'daily_active_user_counts', { user_count: count });
export const dauCountSchema = dauCount.schema;
export type DauCount = z.infer<typeof dauCountSchema>;
