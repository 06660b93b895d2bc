import { z } from 'zod';
import { defineListing } from '../endpoint.js';
import { creditRequestPolicy } from '../freshness.js';
import { mergeCreditUsage } from '../merge.js';
import { count, isoDate, paginationSchema, rangeMeta, withIdentity } from '../schemas.js';

export const creditUsageSchema = z.object({
  records: z.array(
    withIdentity({ credits_consumed: count, date: isoDate.optional(), model_name: z.string().optional() }),
  ),
  pagination: paginationSchema,
  metadata: z.object({ ...rangeMeta, returned_record_count: count }),
});
export type CreditUsage = z.infer<typeof creditUsageSchema>;

/** Which dimensions split the rows besides the identity. */
export interface CreditDimensions {
  by_date?: boolean;
  by_model?: boolean;
}

/** Credits per identity (and per day and model, if asked) over a range up to today, paged; windows are summed per key. */
export const creditUsageByUser = defineListing({
  name: 'credit-usage-by-user',
  method: 'GET',
  params: 'query',
  encode: (dims: CreditDimensions) => ({ by_date: dims.by_date ?? false, by_model: dims.by_model ?? false }),
  schema: creditUsageSchema,
  group: 'credit-usage',
  cache: creditRequestPolicy,
  dates: { rules: 'credit', takes: 'range' },
  items: (v) => v.records,
  paging: { default: 100, max: 500 },
  merge: mergeCreditUsage,
});
