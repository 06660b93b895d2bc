import type { z } from 'zod';
import { defineListing } from '../endpoint.js';
import { count, withIdentity } from '../schemas.js';

/** The identities active on one day, paged. */
export const dau = defineListing({
  name: 'dau',
  dates: { rules: 'metrics', takes: 'date' },
  paging: { default: 100, max: 250 },
  rows: { users: withIdentity({}) },
  counts: { returned_user_count: count },
});
export const dauSchema = dau.schema;
export type Dau = z.infer<typeof dauSchema>;
