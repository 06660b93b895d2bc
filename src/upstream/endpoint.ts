import type { z } from 'zod';
import type { Operation } from './caller.js';
import type { DateRules, NamedRange, RangeInput } from './dates.js';
import type { PageShape } from './pagination.js';

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
  /** The operation's own parameters from the caller's arguments, dates and paging aside; refuses bad ones (InvalidArgumentError). */
  encode(args: P): Record<string, unknown>;
}

/** A range (split into windows of at most 90 days) or a single `date`. */
export type Takes = 'range' | 'date';
export type RangeArg = RangeInput & { range?: NamedRange };
export interface DateArg {
  date?: string;
}
export type DatesArg<T extends Takes> = T extends 'range' ? RangeArg : DateArg;

export interface Paging {
  default: number;
  max: number;
}

/** An operation over dates whose answer holds rows: it can be listed whole (every window, every page) or read a page at a time. */
export interface Listing<
  S extends z.ZodType<PageShape> = z.ZodType<PageShape>,
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

/** What `list` takes for a listing: its dates and its own parameters. */
export type ListArgs<E> = E extends Listing<z.ZodType<PageShape>, infer T, infer P, unknown> ? DatesArg<T> & P : never;

const API_PATH = '/analytics/v0/';

type Defaults = 'host' | 'path' | 'retry' | 'encode';
type Spec<E extends Endpoint<z.ZodType, never>> = Omit<E, Defaults> & Partial<Pick<E, Defaults>>;

/** Unless given: the analytics API host, the path `/analytics/v0/<name>`, a read, and no parameters of its own. */
function withDefaults<T extends { name: string }>(spec: T) {
  return { host: 'api' as const, path: API_PATH + spec.name, retry: 'read' as const, encode: () => ({}), ...spec };
}

export function defineOperation<S extends z.ZodType, P = Record<never, never>>(
  spec: Spec<Endpoint<S, P>>,
): Endpoint<S, P> {
  return withDefaults(spec);
}

export function defineListing<S extends z.ZodType<PageShape>, T extends Takes, Item, P = Record<never, never>>(
  spec: Spec<Listing<S, T, P, Item>>,
): Listing<S, T, P, Item> {
  return withDefaults(spec);
}
