import { z } from 'zod';
import { METRIC_FIELDS, type MetricField } from '../../contract/metrics.js';
import type { Metrics } from '../../upstream/schemas.js';

export const DEFAULT_METRICS: MetricField[] = [
  'total_messages',
  'total_tool_calls',
  'total_modified_lines_of_code',
  'completions_accepted',
  'chat_messages',
];

/** Metric values by field name, in rows and totals. */
export const metricValues = z.record(z.string(), z.number());

/** The requested metrics (or the default five), with the sort metric added when it is missing. */
export function metricFields(requested: MetricField[] | undefined, sortBy: string): MetricField[] {
  const base = requested ?? DEFAULT_METRICS;
  const sortMetric = METRIC_FIELDS.find((f) => f === sortBy);
  return sortMetric && !base.includes(sortMetric) ? [sortMetric, ...base] : base;
}

export function pickMetrics(m: Metrics, fields: readonly MetricField[]): Record<string, number> {
  return Object.fromEntries(fields.map((f) => [f, m[f]]));
}

/** The sums of the rows' metric values. */
export function sumMetrics(
  rows: Array<{ values: Record<string, number> }>,
  fields: readonly string[],
): Record<string, number> {
  const totals = Object.fromEntries(fields.map((f) => [f, 0]));
  for (const r of rows) for (const f of fields) totals[f]! += r.values[f] ?? 0;
  return totals;
}
