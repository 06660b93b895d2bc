import { z } from 'zod';
import { defineListing } from '../endpoint.js';
import { creditRequestPolicy } from '../../domain/freshness.js';
import { mergeCreditUsage } from '../listing/merge.js';
import { count, isoDate, withIdentity } from '../schemas.js';

/** Which dimensions split the rows besides the identity. */
export interface CreditDimensions {
  by_date?: boolean;
  by_model?: boolean;
}

/** Credits per identity (and per day and model, if asked) over a range up to today, paged; windows are summed per key. */
export const creditUsageByUser = defineListing({
  name: 'credit-usage-by-user',
  encode: (dims: CreditDimensions) => ({ by_date: dims.by_date ?? false, by_model: dims.by_model ?? false }),
  group: 'credit-usage',
  cache: creditRequestPolicy,
  dates: { rules: 'credit', takes: 'range' },
  paging: { default: 100, max: 500 },
  rows: {
    records: withIdentity({ credits_consumed: count, date: isoDate.optional(), model_name: z.string().optional() }),
  },
  counts: { returned_record_count: count },
  merge: mergeCreditUsage,
});
export const creditUsageSchema = creditUsageByUser.schema;
export type CreditUsage = z.infer<typeof creditUsageSchema>;
