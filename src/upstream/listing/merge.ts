import { METRIC_FIELDS } from '../../contract/metrics.js';
import { sumCounts, sumDecimals } from '../../domain/numbers.js';
import type { CostPoint } from '../endpoints/cost-analytics.js';
import type { Metrics } from '../schemas.js';

/** Merging the answers of consecutive ≤90-day windows into the answer for the whole range, exactly. */

/** Daily series: the windows are disjoint days, oldest first. */
export function concat<T>(windows: T[][]): T[] {
  return windows.flat();
}

export function addMetrics(a: Metrics, b: Metrics): Metrics {
  const out = { ...a };
  for (const f of METRIC_FIELDS) out[f] = a[f] + b[f];
  return out;
}

export interface IdentityRef {
  user_email?: string;
  service_account_name?: string;
}

export function identityKey(r: IdentityRef): string {
  return r.user_email !== undefined ? `u:${r.user_email.toLowerCase()}` : `s:${r.service_account_name}`;
}

/** Per-identity totals: metrics and active_days summed, in order of first appearance. */
export function mergeUserActivity<T extends IdentityRef & { active_days: number; metrics: Metrics }>(
  windows: T[][],
): T[] {
  const byKey = new Map<string, T>();
  for (const rows of windows) {
    for (const row of rows) {
      const key = identityKey(row);
      const seen = byKey.get(key);
      byKey.set(
        key,
        seen
          ? { ...seen, active_days: seen.active_days + row.active_days, metrics: addMetrics(seen.metrics, row.metrics) }
          : row,
      );
    }
  }
  return [...byKey.values()];
}

/** Credit rows keyed by (identity, date, model): each dimension that is present is part of the key. */
export function mergeCreditUsage<
  T extends IdentityRef & { credits_consumed: number; date?: string; model_name?: string },
>(windows: T[][]): T[] {
  const byKey = new Map<string, T>();
  for (const rows of windows) {
    for (const row of rows) {
      const key = `${identityKey(row)}|${row.date ?? ''}|${row.model_name ?? ''}`;
      const seen = byKey.get(key);
      byKey.set(key, seen ? { ...seen, credits_consumed: seen.credits_consumed + row.credits_consumed } : row);
    }
  }
  return [...byKey.values()];
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

function canonicalGroup(values: object): string {
  return JSON.stringify(values, (_k, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : 1)))
      : v,
  );
}

export function addCostMetrics(a: CostPoint['cost_metrics'], b: CostPoint['cost_metrics']): CostPoint['cost_metrics'] {
  const out = { ...a };
  for (const f of DECIMAL_FIELDS) out[f] = sumDecimals([a[f], b[f]]);
  for (const f of TOKEN_FIELDS) out[f] = sumCounts([a[f], b[f]]);
  return out;
}

/**
 * Cost points of several windows. Daily points are disjoint and concatenate; range totals of the same
 * group are summed (decimals exactly, tokens as BigInt) and span the whole range.
 */
export function mergeCostPoints(
  windows: CostPoint[][],
  range: { start_date: string; end_date: string },
  byDay: boolean,
): CostPoint[] {
  if (byDay) return windows.flat();
  const byGroup = new Map<string, CostPoint>();
  for (const points of windows) {
    for (const point of points) {
      const key = canonicalGroup(point.group_by_values);
      const seen = byGroup.get(key);
      byGroup.set(
        key,
        seen
          ? { ...seen, cost_metrics: addCostMetrics(seen.cost_metrics, point.cost_metrics) }
          : { ...point, ...range },
      );
    }
  }
  return [...byGroup.values()];
}
