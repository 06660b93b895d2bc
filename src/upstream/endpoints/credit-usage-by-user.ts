import { z } from 'zod';
import { defineListing } from '../endpoint.js';
import { creditRequestPolicy } from '../../domain/freshness.js';
import { identityKey, type IdentityRef } from '../listing/merge.js';
import { count, isoDate, withIdentity } from '../schemas.js';

/** Which dimensions split the rows besides the identity. */
export interface CreditDimensions {
  by_date?: boolean;
  by_model?: boolean;
}

/** Credit rows keyed by (identity, date, model): each dimension that is present is part of the key. */
export function mergeCreditUsage<
  T extends IdentityRef & { credits_consumed: number; date?: string; model_name?: string },
>(windows: T[][]): T[] {
  const byKey = new Map<string, T>();
  // Sums are copies made here, added to in place: the rows given are never changed.
  const sums = new Set<T>();
  for (const rows of windows) {
    for (const row of rows) {
      const key = `${identityKey(row)}|${row.date ?? ''}|${row.model_name ?? ''}`;
      const seen = byKey.get(key);
      if (!seen) {
        byKey.set(key, row);
        continue;
      }
      const sum = sums.has(seen) ? seen : { ...seen };
      sum.credits_consumed += row.credits_consumed;
      if (sum !== seen) {
        sums.add(sum);
        byKey.set(key, sum);
      }
    }
  }
  return [...byKey.values()];
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
