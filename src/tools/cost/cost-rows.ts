import { z } from 'zod';
import {
  addCostMetrics,
  DECIMAL_FIELDS as MONEY,
  TOKEN_FIELDS as TOKENS,
  type CostPoint,
} from '../../upstream/endpoints/cost-analytics.js';

export { MONEY, TOKENS };
/** Token counts: a number, or a decimal string above 2^53-1. */
const count = z.union([z.number(), z.string()]);
// Registered with an id, so the rows and the totals share one definition in the output schema.
export const costOut = z
  .object({
    ...Object.fromEntries(MONEY.map((k) => [k, z.string()])),
    ...Object.fromEntries(TOKENS.map((k) => [k, count])),
  } as Record<(typeof MONEY)[number], z.ZodString> & Record<(typeof TOKENS)[number], typeof count>)
  .meta({ id: 'CostMetrics' });

/** One row of the answer: a cost point with its group's values in short words. */
export const costRowOut = z.object({
  start_date: z.string(),
  end_date: z.string(),
  product: z.string().optional(),
  resource: z.string().optional(),
  resource_type: z.string().optional(),
  user: z.string().optional(),
  user_type: z.string().optional(),
  byok_status: z.string().optional(),
  expert_id: z.string().optional(),
  expert: z.string().optional(),
  cost: costOut,
});

export function costRowOf(p: CostPoint) {
  const g = p.group_by_values;
  const u = g.user_info;
  return {
    start_date: p.start_date,
    end_date: p.end_date,
    ...(g.product_display_name !== undefined ? { product: g.product_display_name } : {}),
    ...(g.resource_display_name !== undefined
      ? {
          resource: g.resource_display_name,
          resource_type: g.resource_type?.replace('COST_ANALYTICS_RESOURCE_TYPE_', '').toLowerCase(),
        }
      : {}),
    ...(u
      ? {
          user: u.user_email ?? u.service_account_name ?? u.bot_name ?? '(deleted or unresolved account)',
          user_type: u.user_type.replace('COST_ANALYTICS_USER_TYPE_', '').toLowerCase(),
        }
      : {}),
    ...(g.byok_status !== undefined
      ? { byok_status: g.byok_status === 'COST_ANALYTICS_BYOK_STATUS_BYOK' ? 'byok' : 'non_byok' }
      : {}),
    ...(g.expert_info
      ? { expert_id: g.expert_info.expert_id ?? '(none)', expert: g.expert_info.name ?? '(no expert)' }
      : {}),
    cost: p.cost_metrics,
  };
}

/** Exact sums over the rows. */
export function costTotals(rows: Array<{ cost: CostPoint['cost_metrics'] }>): CostPoint['cost_metrics'] {
  const zero = {
    ...Object.fromEntries(MONEY.map((k) => [k, '0'])),
    ...Object.fromEntries(TOKENS.map((k) => [k, 0])),
  } as CostPoint['cost_metrics'];
  return rows.reduce((t, r) => addCostMetrics(t, r.cost), zero);
}
