import type { z } from 'zod';
import { MAX_RANGE_DAYS } from '../contract/limits.js';
import type { CachedAnswer } from './cache/cache.js';
import type { UpstreamSender } from './transport/sender.js';
import { formatDay } from '../util/utc-date.js';
import { rangeText, resolveDate, resolveRangeArg, splitRange, type DayRange } from '../domain/dates.js';
import type { Days } from '../domain/published-days.js';
import {
  effectiveSpan,
  type DateArg,
  type DatesArg,
  type Endpoint,
  type ListArgs,
  type Listing,
  type RangeArg,
  type Takes,
} from './endpoint.js';
import { UserInputError } from '../errors.js';
import type { Priority } from './limits/limiter.js';
import { combineFreshness, type Freshness } from '../domain/freshness.js';
import { requestKey, type UpstreamRequest } from './request.js';
import type { HistoryPort, StoredPart } from './history-port.js';
import type { PageEstimates } from './listing/page-estimates.js';
import { collect, type PageCaps, type PageShape, type Progress } from './listing/pagination.js';

/** A listing's answer, built from one or more upstream responses. */
export interface ListingAnswer<T> {
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
  /** Ask the upstream even for days the history store holds, and keep nothing in it (the sync stores for itself). */
  liveOnly?: boolean;
  /** Each page's items as they arrive, kept nowhere else (the answer's data is then empty): the sync stages them. */
  onPage?: (items: unknown[]) => Promise<void>;
  /** Pages kept in no cache (the sync keeps them in the history store). */
  uncached?: boolean;
  /** Awaited before each request: the sync's own pace (its share of the rate). */
  beforeRequest?: () => Promise<void>;
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
  sender: UpstreamSender;
  /** The history store, when there is one: stored days answer without a request, live answers fill it. */
  history?: HistoryPort;
  days: () => Days;
  caps?: Partial<PageCaps>;
}

type AnyListing = Listing<z.ZodType<PageShape>, 'range' | 'date', never, unknown>;

/** A listing's request, resolved once: its days, its own parameters (encoded), and its arguments for the merge. */
export interface ListingRequest<E extends AnyListing = AnyListing> extends UpstreamRequest<E> {
  days: DayRange;
  args: ListArgs<E>;
}

/**
 * The request the arguments name: their days by the listing's date rules, resolved and checked once, before
 * anything is sent (days a tool resolved already, under the same rules, are taken as they are).
 */
export function resolveListing<E extends AnyListing>(listing: E, args: ListArgs<E>, days: Days): ListingRequest<E> {
  return {
    op: listing,
    days: daysOf(listing, args as DatesArg<Takes>, days),
    params: listing.encode(args as never),
    args,
  };
}

function daysOf(listing: AnyListing, args: DatesArg<Takes>, days: Days): DayRange {
  if ('days' in args && args.days) return args.days;
  if (listing.dates.takes === 'range') return resolveRangeArg(args as RangeArg, listing.dates.rules, days);
  const day = resolveDate((args as DateArg).date, days);
  return { start: day, end: day };
}

/** One page of a request: its days (a window of at most 90), the page size, and where to start. */
function pageRequest(request: ListingRequest, days: DayRange, size: number | undefined, cursor?: string) {
  return { op: request.op, days, params: { ...request.params, page_size: size, ...(cursor ? { cursor } : {}) } };
}

/** Every page of every window, merged by the listing's rule; a long range is split into windows of at most 90 days. */
export async function list<E extends AnyListing>(
  up: Upstream,
  request: ListingRequest<E>,
  options: ListOptions = {},
): Promise<ListingAnswer<ReturnType<E['items']>>> {
  const { op: listing, days } = request;
  const stored = up.history && !options.liveOnly ? await up.history.cover(request) : null;
  const live = stored ? stored.missing : [days];
  const windows = live.flatMap((d) => (listing.dates.takes === 'range' ? splitRange(d) : [d]));
  // The API gives no total: an unpaged listing takes one request per window, a paged one what it took last
  // time; walks of the same parameters and length take about as many pages, wherever their days lie.
  const estimateKey = requestKey({ ...request, days: { start: 0, end: days.end - days.start } }, 'pages');
  const estimate =
    windows.length === 0 || !listing.paging
      ? windows.length
      : stored
        ? null
        : (options.estimates?.get(estimateKey) ?? null);
  options.onPlan?.({ endpoint: listing.name, expected: estimate });
  const priority = () => (typeof options.priority === 'function' ? options.priority() : options.priority);
  const parts: Array<Omit<ListingAnswer<unknown[]>, 'windows'> & { from: number }> = (stored?.parts ?? []).map(
    storedPart,
  );
  let done: Progress = { pages: 0, records: 0 };
  for (const window of windows) {
    const base = done;
    const onProgress = (p: Progress) =>
      options.onProgress?.({ pages: base.pages + p.pages, records: base.records + p.records });
    let span: [string, string] | undefined;
    const paged = await collect(
      listing.name,
      async (cursor) => {
        const one = pageRequest(request, window, listing.paging?.max, cursor);
        await options.beforeRequest?.();
        const answer = await up.sender.call(one, {
          signal: options.signal,
          priority: priority(),
          uncached: options.uncached,
        });
        span ??= effectiveSpan(listing, answer.value);
        return answer;
      },
      listing.items,
      { caps: { ...up.caps, ...options.caps }, onProgress, signal: options.signal, onPage: options.onPage },
    );
    if (!paged.truncated && !options.liveOnly)
      up.history?.keep(request, window, paged.items, combineFreshness(paged.freshness).fetched_at);
    parts.push({
      from: window.start,
      data: paged.items,
      start_date: span![0],
      end_date: span![1],
      freshness: combineFreshness(paged.freshness),
      pages: paged.pages,
      truncated: paged.truncated,
    });
    done = { pages: base.pages + paged.pages, records: base.records + paged.items.length };
  }
  parts.sort((a, b) => a.from - b.from);
  const pages = parts.reduce((n, p) => n + p.pages, 0);
  if (listing.paging && !stored && !parts.some((p) => p.truncated)) options.estimates?.set(estimateKey, pages);
  return {
    data: listing.merge(
      parts.map((p) => p.data),
      rangeText(days),
      request.args as never,
    ) as ReturnType<E['items']>,
    start_date: parts[0]!.start_date,
    end_date: parts.at(-1)!.end_date,
    freshness: combineFreshness(parts.map((p) => p.freshness)),
    pages,
    truncated: parts.some((p) => p.truncated),
    windows: parts.length,
  };
}

function storedPart(part: StoredPart) {
  const [start_date, end_date] = [formatDay(part.days.start), formatDay(part.days.end)];
  return {
    from: part.days.start,
    data: part.items,
    start_date,
    end_date,
    freshness: part.freshness,
    pages: 0,
    truncated: false,
  };
}

/**
 * One raw upstream page, for callers that page themselves: the same dates as `list`, but at most 90 days
 * (a page cannot span windows), and page_size clamped to the endpoint's maximum.
 */
export async function page<E extends AnyListing>(
  up: Upstream,
  request: ListingRequest<E>,
  at: PageArgs,
  signal?: AbortSignal,
): Promise<CachedAnswer<z.output<E['schema']>>> {
  const { op: listing, days } = request;
  if (days.end - days.start + 1 > MAX_RANGE_DAYS) {
    throw new UserInputError(
      'One raw page covers at most 90 days. Shorten the range, or leave out cursor and page_size so the server splits the range and pages for you.',
    );
  }
  const size = listing.paging
    ? Math.min(Math.max(1, at.page_size ?? listing.paging.default), listing.paging.max)
    : undefined;
  return up.sender.call(pageRequest(request, days, size, at.cursor), { signal }) as Promise<
    CachedAnswer<z.output<E['schema']>>
  >;
}

/** One request to an operation that is neither listed nor paged (budget overrides, the changelog). */
export async function call<S extends z.ZodType, P>(
  up: Upstream,
  endpoint: Endpoint<S, P>,
  args: P,
  signal?: AbortSignal,
): Promise<CachedAnswer<z.output<S>>> {
  return up.sender.call({ op: endpoint, params: endpoint.encode(args) }, { signal });
}
