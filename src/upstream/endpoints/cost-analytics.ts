import { z } from 'zod';
import { GRANULARITIES, GROUP_BY_KEYS, type Granularity, type GroupByKey } from '../../contract/enums.js';
import { defineListing } from '../endpoint.js';
import { UserInputError } from '../../errors.js';
import { sumCounts, sumDecimals, tidyDecimal } from '../../domain/numbers.js';
import { bigCount, count, decimal, isoDate } from '../schemas.js';

export const costMetricsSchema = z.object({
  billed_amount_usd: decimal,
  estimated_customer_cost_usd: decimal,
  base_cost_usd: decimal,
  surcharge_usd: decimal,
  input_tokens: bigCount,
  output_tokens: bigCount,
  cache_read_tokens: bigCount,
  cache_write_tokens: bigCount,
  credits_consumed: decimal,
});
export const groupByValuesSchema = z.object({
  product_display_name: z.string().optional(),
  byok_status: z.string().optional(),
  resource_display_name: z.string().optional(),
  resource_type: z.string().optional(),
  user_info: z
    .object({
      user_type: z.string(),
      user_email: z.string().optional(),
      service_account_name: z.string().optional(),
      bot_name: z.string().optional(),
    })
    .optional(),
  expert_info: z.object({ expert_id: z.string().optional(), name: z.string().optional() }).optional(),
});
const costPointSchema = z.object({
  start_date: isoDate,
  end_date: isoDate,
  cost_metrics: costMetricsSchema,
  group_by_values: groupByValuesSchema.default({}),
});
export type CostPoint = z.infer<typeof costPointSchema>;

export interface CostQuery {
  group_by_keys?: GroupByKey[];
  granularity?: Granularity;
  filters?: Partial<
    Record<'user_emails' | 'service_account_names' | 'product_names' | 'resource_names' | 'expert_ids', string[]>
  >;
}

const EMAIL = /^[^@\s]+@[^@\s]+$/;

/** The request body's query part, checked: known keys and granularity, well-formed emails; empty filters left out. */
function costBody(query: CostQuery): {
  group_by_keys?: string[];
  granularity: string;
  filters?: Record<string, string[]>;
} {
  const keys = [...new Set(query.group_by_keys ?? [])];
  for (const k of keys)
    if (!GROUP_BY_KEYS.includes(k))
      throw new UserInputError(`Unknown group-by key '${k}'; use ${GROUP_BY_KEYS.join(', ')}.`);
  const granularity = query.granularity ?? 'COST_ANALYTICS_TIME_GRANULARITY_TOTAL';
  if (!GRANULARITIES.includes(granularity))
    throw new UserInputError(`Unknown granularity '${granularity}'; use ${GRANULARITIES.join(' or ')}.`);
  const filters = Object.fromEntries(
    Object.entries(query.filters ?? {}).filter(([, v]) => v && v.length > 0),
  ) as Record<string, string[]>;
  const bad = filters.user_emails?.find((e) => !EMAIL.test(e));
  if (bad !== undefined) throw new UserInputError(`'${bad}' in user_emails is not an email address.`);
  return {
    ...(keys.length ? { group_by_keys: keys } : {}),
    granularity,
    ...(Object.keys(filters).length ? { filters } : {}),
  };
}

/** The cost metrics that are decimal strings (money and credits), and those that are token counts. */
export const DECIMAL_FIELDS = [
  'billed_amount_usd',
  'estimated_customer_cost_usd',
  'base_cost_usd',
  'surcharge_usd',
  'credits_consumed',
] as const;
export const TOKEN_FIELDS = ['input_tokens', 'output_tokens', 'cache_read_tokens', 'cache_write_tokens'] as const;

/** A group's values as one key, whatever the order of their fields (built by hand: it runs once per point). */
function canonicalGroup(values: unknown): string {
  if (!values || typeof values !== 'object' || Array.isArray(values)) return JSON.stringify(values) ?? '';
  let out = '';
  for (const k of Object.keys(values).sort()) {
    const v = (values as Record<string, unknown>)[k];
    if (v !== undefined) out += `${out ? ',' : ''}${JSON.stringify(k)}:${canonicalGroup(v)}`;
  }
  return `{${out}}`;
}

export function addCostMetrics(a: CostPoint['cost_metrics'], b: CostPoint['cost_metrics']): CostPoint['cost_metrics'] {
  return sumCostMetrics([a, b]);
}

/** The exact sum of several points' metrics: each field summed once over all of them (the first's other fields kept). */
export function sumCostMetrics(list: ReadonlyArray<CostPoint['cost_metrics']>): CostPoint['cost_metrics'] {
  const out = { ...list[0]! };
  for (const f of DECIMAL_FIELDS) out[f] = tidyDecimal(sumDecimals(list.map((m) => m[f])));
  for (const f of TOKEN_FIELDS) out[f] = sumCounts(list.map((m) => m[f]));
  return out;
}

/**
 * Cost points of several windows. Daily points are disjoint and concatenate; range totals of the same
 * group are summed (decimals exactly, tokens as BigInt, once per group over all its points) and span the
 * whole range.
 */
export function mergeCostPoints(
  windows: CostPoint[][],
  range: { start_date: string; end_date: string },
  byDay: boolean,
): CostPoint[] {
  if (byDay) return windows.flat();
  const byGroup = new Map<string, { first: CostPoint; metrics: Array<CostPoint['cost_metrics']> }>();
  for (const points of windows) {
    for (const point of points) {
      const key = canonicalGroup(point.group_by_values);
      const seen = byGroup.get(key);
      if (seen) seen.metrics.push(point.cost_metrics);
      else byGroup.set(key, { first: { ...point, ...range }, metrics: [point.cost_metrics] });
    }
  }
  return [...byGroup.values()].map(({ first, metrics }) =>
    metrics.length === 1 ? first : { ...first, cost_metrics: sumCostMetrics(metrics) },
  );
}

/**
 * Cost in USD and credits, grouped and per day or for the whole range, paged; parameters in a JSON body.
 * Windows of a long range: daily points concatenate, range totals are summed exactly per group.
 */
export const costAnalytics = defineListing({
  name: 'cost-analytics',
  method: 'POST',
  encode: costBody,
  group: 'cost-analytics',
  dates: { rules: 'cost', takes: 'range' },
  paging: { default: 100, max: 1000 },
  rows: { data_points: costPointSchema },
  counts: { returned_data_point_count: count },
  merge: (windows, whole, query) =>
    mergeCostPoints(windows, whole, query.granularity === 'COST_ANALYTICS_TIME_GRANULARITY_DAY'),
});
export const costAnalyticsSchema = costAnalytics.schema;
export type CostAnalytics = z.infer<typeof costAnalyticsSchema>;
