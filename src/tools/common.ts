import { z } from 'zod';
import { METRIC_FIELDS, type MetricField } from '../contract/metrics.js';
import { NAMED_RANGES } from '../upstream/dates.js';
import { compareDecimals } from '../upstream/numbers.js';
import type { CachedAnswer } from '../upstream/cache.js';
import type { Answer } from '../upstream/client.js';
import type { Freshness } from '../upstream/freshness.js';
import type { Metrics } from '../upstream/schemas.js';
import { freshnessOut } from '../format/freshness.js';
import { assertCursor, assertServiceAccountName } from './identity-format.js';
import type { ToolContext } from './types.js';

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
export const usersInput = z.array(z.string().min(1)).max(1000).optional().describe('only these emails or service-account names');
export const pageInputs = {
  cursor: z.string().optional().describe('one raw upstream page from this cursor'),
  page_size: z.number().int().min(1).optional().describe('with cursor, or alone for a first raw page'),
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
export const metricsInput = z.array(metricEnum).min(1).optional().describe('metric fields to include (default: a core five)');
export const DEFAULT_METRICS: MetricField[] = ['total_messages', 'total_tool_calls', 'total_modified_lines_of_code', 'completions_accepted', 'chat_messages'];

/** Output pieces. */
export const identityOut = { user: z.string(), kind: z.enum(['user', 'service_account']) };
export const tableOut = {
  total_rows: z.number().int(),
  returned_rows: z.number().int(),
  /** True when a paging cap stopped before all upstream data was read. */
  truncated: z.boolean(),
};
export const metricValues = z.record(z.string(), z.number());

export function identityOf(r: { user_email?: string; service_account_name?: string }): { user: string; kind: 'user' | 'service_account' } {
  return r.user_email !== undefined ? { user: r.user_email, kind: 'user' } : { user: r.service_account_name ?? '', kind: 'service_account' };
}

/** The requested metrics (or the default five), with the sort metric added when it is missing. */
export function metricFields(requested: MetricField[] | undefined, sortBy: string): MetricField[] {
  const base = requested ?? DEFAULT_METRICS;
  const sortMetric = METRIC_FIELDS.find((f) => f === sortBy);
  return sortMetric && !base.includes(sortMetric) ? [sortMetric, ...base] : base;
}

export function pickMetrics(m: Metrics, fields: readonly MetricField[]): Record<string, number> {
  return Object.fromEntries(fields.map((f) => [f, m[f]]));
}

export function sumMetrics(rows: Array<Record<string, number>>, fields: readonly string[]): Record<string, number> {
  const totals = Object.fromEntries(fields.map((f) => [f, 0]));
  for (const r of rows) for (const f of fields) totals[f]! += r[f] ?? 0;
  return totals;
}

/** Sorts by a numeric or decimal-string key; ties keep a stable, readable order. */
export function sortRows<T>(rows: T[], key: (r: T) => number | string, order: 'asc' | 'desc', tie: (r: T) => string): T[] {
  const sign = order === 'asc' ? 1 : -1;
  return [...rows].sort((a, b) => {
    const x = key(a);
    const y = key(b);
    const c = typeof x === 'string' || typeof y === 'string' ? compareDecimals(String(x), String(y)) : x - y;
    return c !== 0 ? sign * c : tie(a) < tie(b) ? -1 : tie(a) > tie(b) ? 1 : 0;
  });
}

/** Resolves the `users` filter (emails, pseudonyms or service-account names) to a matcher. */
export async function userMatcher(users: string[] | undefined, ctx: ToolContext): Promise<((r: { user_email?: string; service_account_name?: string }) => boolean) | undefined> {
  if (!users || users.length === 0) return undefined;
  const emails = new Set<string>();
  const accounts = new Set<string>();
  for (const u of users) {
    if (u.includes('@')) emails.add((await ctx.resolveEmail(u)).toLowerCase());
    else accounts.add(assertServiceAccountName(u));
  }
  return (r) => (r.user_email !== undefined ? emails.has(r.user_email.toLowerCase()) : accounts.has(r.service_account_name ?? ''));
}

/** Range arguments as the client takes them. */
export function rangeArg(args: { start_date?: string; end_date?: string; range?: (typeof NAMED_RANGES)[number] }) {
  return { start_date: args.start_date, end_date: args.end_date, range: args.range };
}

/** True when the caller asked for one raw upstream page (cursor and/or page_size) instead of everything. */
export function wantsRawPage(args: { cursor?: string; page_size?: number }): boolean {
  return args.cursor !== undefined || args.page_size !== undefined;
}

/** In raw-page mode, the cursor of the next page. */
export const pagingOut = { next_cursor: z.string().nullable() };

export function nextCursorOf(p: { has_more: boolean; next_cursor?: string }): string | null {
  return p.has_more && p.next_cursor ? p.next_cursor : null;
}

export interface Listing<T> {
  items: T[];
  start: string;
  end: string;
  freshness: Freshness;
  truncated: boolean;
  next: string | null;
}

/** Every page (walked, split and merged by the client), or one raw upstream page when cursor or page_size ask for it. */
export async function listing<V extends { pagination: { has_more: boolean; next_cursor?: string } }, T>(
  args: { cursor?: string; page_size?: number },
  one: { page: () => Promise<unknown>; items: (v: V) => T[]; span: (v: V) => [string, string] },
  all: () => Promise<Answer<T[]>>,
): Promise<Listing<T>> {
  if (wantsRawPage(args)) {
    assertCursor(args.cursor);
    const page = (await one.page()) as CachedAnswer<V>;
    const [start, end] = one.span(page.value);
    return { items: one.items(page.value), start, end, freshness: page.freshness, truncated: false, next: nextCursorOf(page.value.pagination) };
  }
  const answer = await all();
  return { items: answer.data, start: answer.start_date, end: answer.end_date, freshness: answer.freshness, truncated: answer.truncated, next: null };
}

/** The row counts, paging state and freshness every list answer ends with. */
export function tableMeta(all: readonly unknown[], rows: readonly unknown[], meta: Listing<unknown>) {
  return {
    total_rows: all.length,
    returned_rows: rows.length,
    truncated: meta.truncated,
    next_cursor: meta.next,
    freshness: freshnessOut(meta.freshness, meta.end),
  };
}
