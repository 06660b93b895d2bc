import { z } from 'zod';
import { defineListing } from '../endpoint.js';
import { dailyPolicy } from '../freshness.js';
import { concat } from '../merge.js';
import { count, dayMeta, paginationSchema, withIdentity } from '../schemas.js';

export const dauSchema = z.object({
  users: z.array(withIdentity({})),
  pagination: paginationSchema,
  metadata: z.object({ ...dayMeta, returned_user_count: count }),
});
export type Dau = z.infer<typeof dauSchema>;

/** The identities active on one day, paged. */
export const dau = defineListing({
  name: 'dau',
  method: 'GET',
  params: 'query',
  schema: dauSchema,
  group: 'general',
  cache: dailyPolicy,
  dates: { rules: 'metrics', takes: 'date' },
  items: (v) => v.users,
  paging: { default: 100, max: 250 },
  merge: concat,
});
