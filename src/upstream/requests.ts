import type { z } from 'zod';
import { MAX_RANGE_DAYS } from '../contract/limits.js';
import { formatDay } from '../util/utc-date.js';
import type { CachedAnswer } from './cache/cache.js';
import type { Caller, CallOptions } from './transport/caller.js';
import { rangeText, resolveDate, resolveRangeArg, splitRange, type DayRange } from '../domain/dates.js';
import type { Days } from '../domain/published-days.js';
import type { DateArg, Endpoint, ListArgs, Listing, RangeArg } from './endpoint.js';
import { UserInputError } from '../errors.js';
import type { Priority } from './limits/limiter.js';
import { combineFreshness, type Freshness } from '../domain/freshness.js';
import { canonicalKey } from './cache/canonical-key.js';
import type { PageEstimates } from './listing/page-estimates.js';
import { collect, type PageCaps, type PageShape, type Progress } from './listing/pagination.js';

/** An answer built from one or more upstream responses. */
export interface Answer<T> {
  data: T;
  /** The effective range or date, as the upstream applied it. */
  start_date: string;
  end_date: string;
  freshness: Freshness;
  pages: number;
  truncated: boolean;
  /** Requests of at most 90 days the range was split into. */
  windows: number;
}

/** Interactive requests go before background ones (warm-up, walks that go on after their call answered). */
export type RequestPriority = Priority;

export interface WalkPlan {
  endpoint: string;
  /** Exact for an unpaged listing (one request per window); for a paged one, what the last whole walk took. */
  expected: number | null;
}

export interface ListOptions {
  signal?: AbortSignal;
  onProgress?: (progress: Progress) => void;
  /** Called once before the first request: the pages the walk is expected to take (null: not known). */
  onPlan?: (plan: WalkPlan) => void;
  caps?: Partial<PageCaps>;
  /** Read before each request, so that a walk can change priority half-way. Default: interactive. */
  priority?: RequestPriority | (() => RequestPriority);
  /** Pages earlier walks of the same listing took: read for `expected`, written when a walk completes. */
  estimates?: PageEstimates;
}

/** A raw page: where to start, and how many rows (clamped to the endpoint's maximum). */
export interface PageArgs {
  cursor?: string;
  page_size?: number;
}

/** What requests are sent through, and against which day. */
export interface Upstream {
  caller: Caller;
  days: () => Days;
  caps?: Partial<PageCaps>;
}

type AnyListing = Listing<z.ZodType<PageShape>, 'range' | 'date', never, unknown>;

/** The days the arguments name by the listing's date rules: resolved and checked once, before anything is sent. */
function daysOf(listing: AnyListing, args: RangeArg & DateArg, days: Days): DayRange {
  if (listing.dates.takes === 'date') {
    const day = resolveDate(args.date, days);
    return { start: day, end: day };
  }
  return resolveRangeArg(args, listing.dates.rules, days);
}

function dateParams(listing: AnyListing, days: DayRange): Record<string, string> {
  return listing.dates.takes === 'date' ? { date: formatDay(days.start) } : rangeText(days);
}

/** The parameters where the endpoint takes them: a query string of text values, or a JSON body. Undefined ones are left out. */
function request(
  endpoint: Endpoint<z.ZodType, never>,
  params: Record<string, unknown>,
  signal: AbortSignal | undefined,
  priority?: RequestPriority,
): CallOptions {
  const given = Object.entries(params).filter(([, v]) => v !== undefined);
  const common = { signal, ...(priority ? { priority } : {}) };
  if (endpoint.params === 'body') return { body: Object.fromEntries(given), ...common };
  return { query: Object.fromEntries(given.map(([k, v]) => [k, String(v)])), ...common };
}

/** The dates an answer says the upstream applied. */
function spanOf(listing: AnyListing, value: unknown): [string, string] {
  const meta = (value as { metadata: Record<string, string> }).metadata;
  return listing.dates.takes === 'date'
    ? [meta.effective_date!, meta.effective_date!]
    : [meta.effective_start_date!, meta.effective_end_date!];
}

/** Every page of every window, merged by the listing's rule; a long range is split into windows of at most 90 days. */
export async function list<E extends AnyListing>(
  up: Upstream,
  listing: E,
  args: ListArgs<E>,
  options: ListOptions = {},
): Promise<Answer<ReturnType<E['items']>>> {
  const days = daysOf(listing, args as RangeArg & DateArg, up.days());
  const own = listing.encode(args as never);
  const windows = listing.dates.takes === 'range' ? splitRange(days) : [days];
  // The API gives no total: an unpaged listing takes one request per window, a paged one what it took last time.
  const estimateKey = `${listing.name}|${canonicalKey(own)}|${days.end - days.start + 1}`;
  const estimate = listing.paging ? (options.estimates?.get(estimateKey) ?? null) : windows.length;
  options.onPlan?.({ endpoint: listing.name, expected: estimate });
  const priority = () => (typeof options.priority === 'function' ? options.priority() : options.priority);
  const parts: Array<Omit<Answer<unknown[]>, 'windows'>> = [];
  let done: Progress = { pages: 0, records: 0 };
  for (const window of windows) {
    const base = done;
    const onProgress = (p: Progress) =>
      options.onProgress?.({ pages: base.pages + p.pages, records: base.records + p.records });
    let span: [string, string] | undefined;
    const paged = await collect(
      listing.name,
      async (cursor) => {
        const params = {
          ...dateParams(listing, window),
          ...own,
          page_size: listing.paging?.max,
          ...(cursor ? { cursor } : {}),
        };
        const answer = await up.caller.call(listing, request(listing, params, options.signal, priority()));
        span ??= spanOf(listing, answer.value);
        return answer;
      },
      listing.items,
      { caps: { ...up.caps, ...options.caps }, onProgress, signal: options.signal },
    );
    parts.push({
      data: paged.items,
      start_date: span![0],
      end_date: span![1],
      freshness: combineFreshness(paged.freshness),
      pages: paged.pages,
      truncated: paged.truncated,
    });
    done = { pages: base.pages + paged.pages, records: base.records + paged.items.length };
  }
  const pages = parts.reduce((n, p) => n + p.pages, 0);
  if (listing.paging && !parts.some((p) => p.truncated)) options.estimates?.set(estimateKey, pages);
  return {
    data: listing.merge(
      parts.map((p) => p.data),
      rangeText(days),
      args as never,
    ) as ReturnType<E['items']>,
    start_date: parts[0]!.start_date,
    end_date: parts.at(-1)!.end_date,
    freshness: combineFreshness(parts.map((p) => p.freshness)),
    pages,
    truncated: parts.some((p) => p.truncated),
    windows: parts.length,
  };
}

/**
 * One raw upstream page, for callers that page themselves: the same dates as `list`, but at most 90 days
 * (a page cannot span windows), and page_size clamped to the endpoint's maximum.
 */
export async function page<E extends AnyListing>(
  up: Upstream,
  listing: E,
  args: ListArgs<E> & PageArgs,
  signal?: AbortSignal,
): Promise<CachedAnswer<z.output<E['schema']>>> {
  const days = daysOf(listing, args as RangeArg & DateArg, up.days());
  if (days.end - days.start + 1 > MAX_RANGE_DAYS) {
    throw new UserInputError(
      'One raw page covers at most 90 days. Shorten the range, or leave out cursor and page_size so the server splits the range and pages for you.',
    );
  }
  const own = listing.encode(args as never);
  const size = listing.paging
    ? Math.min(Math.max(1, args.page_size ?? listing.paging.default), listing.paging.max)
    : undefined;
  const params = {
    ...dateParams(listing, days),
    ...own,
    page_size: size,
    ...(args.cursor ? { cursor: args.cursor } : {}),
  };
  return up.caller.call(listing, request(listing, params, signal)) as Promise<CachedAnswer<z.output<E['schema']>>>;
}

/** One request to an operation that is neither listed nor paged (budget overrides, the changelog). */
export async function call<S extends z.ZodType, P>(
  up: Upstream,
  endpoint: Endpoint<S, P>,
  args: P,
  signal?: AbortSignal,
): Promise<CachedAnswer<z.output<S>>> {
  return up.caller.call(endpoint, request(endpoint as Endpoint<S, never>, endpoint.encode(args), signal));
}
