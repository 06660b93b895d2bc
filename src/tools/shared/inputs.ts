import { z } from 'zod';
import { METRIC_FIELDS } from '../../contract/metrics.js';
import { NAMED_RANGES } from '../../domain/dates.js';
import type { DaysArg, RangeArg } from '../../upstream/endpoint.js';

/** Input fields shared by the tools: short descriptions, because every model reads them on every turn. */
// A refinement, not a regex: the format is in the description, and tools/list stays shorter.
export const date = z.string().refine((v) => /^\d{4}-\d{2}-\d{2}$/.test(v), 'use YYYY-MM-DD');
export const rangeInputs = {
  start_date: date.optional().describe('YYYY-MM-DD, UTC'),
  end_date: date.optional().describe('YYYY-MM-DD, UTC, inclusive'),
  range: z.enum(NAMED_RANGES).optional().describe('instead of dates; resolved in UTC'),
};
export const listInputs = {
  limit: z.number().int().min(1).max(1000).default(25).describe('rows returned; totals cover all rows'),
  order: z.enum(['asc', 'desc']).default('desc'),
};
export const usersInput = z
  .array(z.string().min(1))
  .max(1000)
  .optional()
  .describe('only these emails or service-account names');
export const pageInputs = {
  cursor: z.string().optional().describe('a raw upstream page from this cursor'),
  page_size: z.number().int().min(1).optional().describe('raw page size'),
};
export const metricEnum = z.enum(METRIC_FIELDS);
/** Sorting by a metric: validated here, described (not enumerated) in tools/list, since `metrics` lists the names. */
export function sortByInput<const E extends readonly string[]>(extra: E, fallback: string) {
  const allowed: readonly string[] = [...extra, ...METRIC_FIELDS];
  return z
    .string()
    .refine((v) => allowed.includes(v), { message: `use ${extra.join(', ')} or a metric field name` })
    .default(fallback)
    .describe(`${extra.join(', ')} or any metric field`);
}
export const metricsInput = z
  .array(metricEnum)
  .min(1)
  // A metric named twice is one column, where it is first named: the same in every tool that takes metrics.
  .transform((fields) => [...new Set(fields)])
  .optional()
  .describe('metric fields to include (default: a core five)');

/** A tool's declared request over its range: the listing, asked for the range's days. */
export const rangeRequest =
  <E>(listing: E) =>
  (args: RangeArg) => ({ listing, args: rangeArg(args) });

/** Range arguments as the client takes them: the days a comparison resolved already, or the range as given. */
export function rangeArg(args: RangeArg & Partial<DaysArg>): RangeArg & Partial<DaysArg> {
  if (args.days) return { days: args.days };
  return { start_date: args.start_date, end_date: args.end_date, range: args.range };
}
