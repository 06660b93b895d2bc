import { z } from 'zod';
import type { Operation } from './transport/operation.js';
import type { DateRules, DayRange, NamedRange, RangeInput } from '../domain/dates.js';
import { dailyPolicy } from '../domain/freshness.js';
import { concat } from './listing/merge.js';
import type { PageShape } from './listing/pagination.js';
import { count, dayMeta, isoDate, paginationSchema, rangeMeta } from './schemas.js';

/**
 * The descriptor of one upstream operation: everything the client needs to know about it, in one
 * place. Each lives in its own file under endpoints/, beside its response schema; tools import it from
 * there and hand it to `client.list`, `client.page` or `client.call`.
 */
export interface Endpoint<S extends z.ZodType = z.ZodType, P = never> extends Operation<S> {
  /** Where the parameters go: the query string (every value as text) or a JSON body. */
  params: 'query' | 'body';
  // encode, items and merge are methods, not function-typed properties, so that a descriptor of any
  // schema and arguments fits where any endpoint or listing is taken.
  /** The operation's own parameters from the caller's arguments, dates and paging aside; refuses bad ones (UserInputError). */
  encode(args: P): Record<string, unknown>;
}

/** A range (split into windows of at most 90 days) or a single `date`. */
export type Takes = 'range' | 'date';
export type RangeArg = RangeInput & { range?: NamedRange };
export interface DateArg {
  date?: string;
}
/** Days a tool resolved already (under the listing's date rules) are sent as they are. */
export interface DaysArg {
  days: DayRange;
}
export type DatesArg<T extends Takes> = (T extends 'range' ? RangeArg : DateArg) | DaysArg;

export interface Paging {
  default: number;
  max: number;
}

/** An operation over dates whose answer holds rows: it can be listed whole (every window, every page) or read a page at a time. */
// S is not bound to PageShape here, so that defineListing can name the schema it builds for any rows.
export interface Listing<
  S extends z.ZodType = z.ZodType<PageShape>,
  T extends Takes = Takes,
  P = unknown,
  Item = unknown,
> extends Endpoint<S, P> {
  dates: { rules: DateRules; takes: T };
  /** Where the rows are in one answer. */
  items(value: z.output<S>): Item[];
  /** Page sizes (`list` asks for the maximum); null when one answer holds every row. */
  paging: Paging | null;
  /** The rows of a long range from the rows of its windows, oldest first. `whole`: the resolved range. */
  merge(windows: Item[][], whole: { start_date: string; end_date: string }, args: P): Item[];
}

/** The days an answer says the upstream applied, from its metadata: [start, end], one day twice for a `date`. */
export function effectiveSpan(listing: { dates: { takes: Takes } }, value: unknown): [string, string] {
  const meta = (value as { metadata: Record<string, string> }).metadata;
  return listing.dates.takes === 'date'
    ? [meta.effective_date!, meta.effective_date!]
    : [meta.effective_start_date!, meta.effective_end_date!];
}

/** What `list` takes for a listing: its dates and its own parameters. */
export type ListArgs<E> = E extends Listing<z.ZodType<PageShape>, infer T, infer P, unknown> ? DatesArg<T> & P : never;

const API_PATH = '/analytics/v0/';

type Defaults = 'host' | 'path' | 'retry' | 'encode' | 'method' | 'params' | 'group' | 'cache';
type Spec<E extends Endpoint<z.ZodType, never>> = Omit<E, Defaults> & Partial<Pick<E, Defaults>>;

/**
 * Unless given: the analytics API host, the path `/analytics/v0/<name>`, a GET taking a query string (a
 * POST takes a JSON body), a read, the general rate group, cached by the daily publication, and no
 * parameters of its own.
 */
function withDefaults<T extends { name: string; method?: 'GET' | 'POST' }>(spec: T) {
  return {
    host: 'api' as const,
    path: API_PATH + spec.name,
    method: 'GET' as const,
    params: spec.method === 'POST' ? ('body' as const) : ('query' as const),
    retry: 'read' as const,
    group: 'general' as const,
    cache: dailyPolicy,
    encode: () => ({}),
    ...spec,
  };
}

export function defineOperation<S extends z.ZodType, P = Record<never, never>>(
  spec: Spec<Endpoint<S, P>>,
): Endpoint<S, P> {
  return withDefaults(spec);
}

type DateMeta<T extends Takes> = T extends 'date' ? typeof dayMeta : typeof rangeMeta;
/** A listing's answer: its rows under one key, the position of the next page if it is paged, and the metadata. */
type AnswerShape<K extends string, R extends z.ZodType, C extends z.ZodRawShape, T extends Takes, G> = {
  [k in K]: z.ZodArray<R>;
} & (G extends Paging ? { pagination: typeof paginationSchema } : unknown) & { metadata: z.ZodObject<DateMeta<T> & C> };

/** What a listing's file states: its name, rows and counts, and whatever differs from the defaults (withDefaults', and these). */
type ListingSpec<K extends string, R extends z.ZodType, C extends z.ZodRawShape, T extends Takes, P, G> = Omit<
  Spec<Endpoint<z.ZodType, P>>,
  'schema'
> & {
  /** The one key the rows are under, and the schema of a row. */
  rows: { [k in K]: R };
  /** The metadata beside the dates the upstream applied (which follow from `dates.takes`). */
  counts: C;
  /** By default a range under the metrics date rules. */
  dates?: { rules: DateRules; takes: T };
  /** By default unpaged: one answer holds every row. */
  paging?: G;
  /** By default the windows' rows one after another. */
  merge?(windows: z.output<R>[][], whole: { start_date: string; end_date: string }, args: P): z.output<R>[];
};

/** A listing, its response schema built from its rows and counts. */
export function defineListing<
  K extends string,
  R extends z.ZodType,
  C extends z.ZodRawShape,
  T extends Takes = 'range',
  P = Record<never, never>,
  G extends Paging | null = null,
>(spec: ListingSpec<K, R, C, T, P, G>): Listing<z.ZodObject<AnswerShape<K, R, C, T, G>>, T, P, z.output<R>> {
  const { rows, counts, ...own } = spec;
  const [key, row] = Object.entries<R>(rows)[0]!;
  const dates = spec.dates ?? ({ rules: 'metrics', takes: 'range' } as { rules: DateRules; takes: T });
  const paging = spec.paging ?? null;
  const schema = z.object({
    [key]: z.array(row),
    ...(paging ? { pagination: paginationSchema } : {}),
    metadata: z.object({ ...(dates.takes === 'date' ? dayMeta : rangeMeta), ...counts }),
  }) as unknown as z.ZodObject<AnswerShape<K, R, C, T, G>>;
  const items = (value: unknown) => (value as Record<string, z.output<R>[]>)[key]!;
  // Named before it is returned: inferred from the return type instead, the defaults would count as optional.
  const listing = withDefaults({ dates, paging, merge: concat, ...own, schema, items });
  return listing;
}

/** A listing of one row per day over a range, all in one answer: rows `{ date, ...fields }` under `key`, and `total_days`. */
export function defineDailySeries<K extends string, F extends z.ZodRawShape>(name: string, key: K, fields: F) {
  const row = z.object({ date: isoDate, ...fields });
  return defineListing({ name, rows: { [key]: row } as { [k in K]: typeof row }, counts: { total_days: count } });
}
