import { join } from 'node:path';
import type { z } from 'zod';
import { BackgroundListings } from './listing/background-listings.js';
import { FilePageEstimates } from './listing/page-estimates.js';
import { ResponseCache, type CachedAnswer } from './cache/cache.js';
import { UpstreamSender } from './transport/sender.js';
import { tokenCredential, type Credential } from './credential.js';
import { DEFAULT_REFRESH_HOUR_UTC, daysAt, type Days } from '../domain/published-days.js';
import { DiskStore, type StoreLog } from './cache/disk-store.js';
import type { Endpoint, ListArgs, Listing } from './endpoint.js';
import { HttpTransport } from './transport/http.js';
import { RateLimiters } from './limits/limiter.js';
import { DEFAULT_LIMITS, type LimitsConfig } from './limits/limits-config.js';
import type { PageCaps, PageShape } from './listing/pagination.js';
import {
  call,
  list,
  page,
  resolveListing,
  type ListingAnswer,
  type ListingRequest,
  type ListOptions,
  type PageArgs,
  type Upstream,
} from './requests.js';
import type { SharedRedis } from './limits/redis-connection.js';
import { RedisStore } from './cache/redis-store.js';
import { DEFAULT_RETRY, type RetryConfig } from './transport/retry.js';
import type { AnswerStore } from './cache/stored-answer.js';
import type { HistoryPort } from './history-port.js';
import { VERSION } from '../version.js';

export type { ListingAnswer, ListingRequest, ListOptions, PageArgs } from './requests.js';

export interface ClientOptions {
  baseUrl: string;
  /** Host of the public changelog; defaults to the base URL's origin. */
  siteUrl?: string;
  /** A service-account token, or a credential that supplies tokens (a login). */
  token: string | Credential;
  /** attemptMs: the whole of one request, headers and body (see DEFAULT_ATTEMPT_TIMEOUT_MS). */
  timeouts?: Partial<{ connectMs: number; headersMs: number; bodyMs: number; attemptMs: number }>;
  retry?: Partial<RetryConfig>;
  limits?: Partial<LimitsConfig>;
  /** The largest response body read (default 32 MB); a larger one is cut off as it arrives. */
  maxResponseBytes?: number;
  /** Upper bound of the response cache in memory, in bytes of response bodies. */
  cacheMaxBytes?: number;
  /** Directory of the persistent cache (see DiskStore); without it nothing is written to disk. */
  cacheDir?: string;
  /** Upper bound of the persistent cache, in bytes of its files (default 500 MB). */
  diskCacheMaxBytes?: number;
  /** A Redis that shares the cache and the rate limits with other processes; its owner closes it. */
  redis?: SharedRedis;
  /** Where the stores report trouble (a damaged entry, an unusable directory). */
  log?: StoreLog;
  caps?: Partial<PageCaps>;
  /** The clock (epoch ms); tests inject one. */
  now?: () => number;
  /** The hour (UTC) from which yesterday's daily figures count as published (--refresh-hour; default 3). */
  refreshHour?: number;
  random?: () => number;
  env?: NodeJS.ProcessEnv;
}

/**
 * A healthy page answers in well under a second; 15 s per attempt leaves a hanging upstream room for two
 * attempts and their backoff inside the default 42 s call budget, which itself ends before the 60 s
 * after which MCP clients give up, so the model hears why instead of a client timeout.
 */
export const DEFAULT_ATTEMPT_TIMEOUT_MS = 15_000;

type AnyListing = Listing<z.ZodType<PageShape>, 'range' | 'date', never, unknown>;

/** The upstream API: validated, rate limited, cached, paginated and merged. Knows nothing of MCP. */
export class AnalyticsClient {
  readonly sender: UpstreamSender;
  readonly limiters: RateLimiters;
  readonly cache: ResponseCache;
  /** The shared Redis, when configured: the rate limits and the cache both use it. */
  readonly redis: SharedRedis | undefined;
  readonly baseUrl: string;
  /** The persistent cache's directory, when there is one. */
  readonly cacheDir: string | undefined;
  /** The hour (UTC) from which yesterday's daily figures count as published: the one the cache and the warm-up follow. */
  readonly refreshHour: number;
  /** Listings that may outlive the call that started them; every server instance on this client shares them. */
  readonly background: BackgroundListings;
  private readonly http: HttpTransport;
  private readonly upstream: Upstream;
  private readonly clock: () => number;

  constructor(options: ClientOptions) {
    const now = options.now ?? Date.now;
    this.clock = now;
    const refreshHour = options.refreshHour ?? DEFAULT_REFRESH_HOUR_UTC;
    this.refreshHour = refreshHour;
    this.http = new HttpTransport({
      connectTimeoutMs: options.timeouts?.connectMs ?? 10_000,
      headersTimeoutMs: options.timeouts?.headersMs ?? 30_000,
      bodyTimeoutMs: options.timeouts?.bodyMs ?? 30_000,
      attemptTimeoutMs: options.timeouts?.attemptMs ?? DEFAULT_ATTEMPT_TIMEOUT_MS,
      maxResponseBytes: options.maxResponseBytes,
      userAgent: `org-analytics-mcp/${VERSION} (+node ${process.version})`,
      env: options.env,
    });
    this.redis = options.redis;
    this.baseUrl = options.baseUrl;
    this.cacheDir = options.cacheDir;
    this.limiters = new RateLimiters({ ...DEFAULT_LIMITS, ...options.limits }, now, options.redis);
    // Memory first, then Redis (shared by every process), then the disk (this user's, across restarts).
    const stores: AnswerStore[] = [];
    if (options.redis) stores.push(new RedisStore(options.redis));
    if (options.cacheDir)
      stores.push(new DiskStore(options.cacheDir, options.diskCacheMaxBytes ?? 500 * 1024 * 1024, options.log));
    this.cache = new ResponseCache(options.cacheMaxBytes ?? 50_000_000, now, stores);
    const { baseUrl, siteUrl = new URL(baseUrl).origin, token, random } = options;
    this.sender = new UpstreamSender(
      {
        baseUrl,
        siteUrl,
        credential: typeof token === 'string' ? tokenCredential(token) : token,
        retry: { ...DEFAULT_RETRY, ...options.retry },
        now,
        refreshHour,
        random,
      },
      this.http,
      this.limiters,
      this.cache,
    );
    this.upstream = {
      sender: this.sender,
      days: () => ({ ...daysAt(now(), refreshHour), storedFrom: this.upstream.history?.storedFrom() }),
      caps: options.caps,
    };
    this.background = new BackgroundListings(this.upstream, (group) => this.limiters.config[group].perMinute);
    // With a disk cache, page counts outlive the process: tomorrow's first walk already knows its length.
    if (options.cacheDir)
      this.background.estimates = new FilePageEstimates(
        join(options.cacheDir, `page-estimates-${this.sender.credential}.json`),
      );
  }

  /** Today's UTC day number. */
  today(): number {
    return this.upstream.days().today;
  }

  /** Today, the latest day whose daily figures are published, and the refresh hour, by the client's clock. */
  days(): Days {
    return this.upstream.days();
  }

  /** The client's clock (epoch ms): tests and the simulator freeze it. */
  now(): number {
    return this.clock();
  }

  /** The request a listing's arguments name, resolved and checked once by the client's day: nothing is sent. */
  resolve<E extends AnyListing>(listing: E, args: ListArgs<E>): ListingRequest<E> {
    return resolveListing(listing, args, this.days());
  }

  /** Every page of every window of a listing, merged by its rule (see Listing). */
  async list<E extends AnyListing>(
    listing: E,
    args: ListArgs<E>,
    options: ListOptions = {},
  ): Promise<ListingAnswer<ReturnType<E['items']>>> {
    return list(this.upstream, this.resolve(listing, args), options);
  }

  /** One raw page of a listing, for callers that page themselves: at most 90 days, page_size clamped. */
  async page<E extends AnyListing>(
    listing: E,
    args: ListArgs<E> & PageArgs,
    signal?: AbortSignal,
  ): Promise<CachedAnswer<z.output<E['schema']>>> {
    return page(this.upstream, this.resolve(listing, args), args, signal);
  }

  /** Whether the history store holds every day of a listing's request, so that listing it sends nothing. */
  async stored<E extends AnyListing>(listing: E, args: ListArgs<E>): Promise<boolean> {
    const covered = await this.upstream.history?.cover(this.resolve(listing, args), true);
    return covered !== null && covered !== undefined && covered.missing.length === 0;
  }

  /** Resolves once the history store (if any) is open: it opens on first use, not when the server starts. */
  async historyReady(): Promise<void> {
    await this.upstream.history?.ready?.();
  }

  /** Answers stored days from the history store and keeps live per-day answers in it (undefined: none). */
  useHistory(history: HistoryPort | undefined): void {
    this.upstream.history = history;
  }

  /** One request to an operation without dates (budget overrides, the changelog). */
  call<S extends z.ZodType, P>(
    endpoint: Endpoint<S, P>,
    args: P,
    signal?: AbortSignal,
  ): Promise<CachedAnswer<z.output<S>>> {
    return call(this.upstream, endpoint, args, signal);
  }

  /** Stops background walks, then ends the limiters and the HTTP pool once the stores have every answer loaded so far; not the Redis connection. */
  async close(): Promise<void> {
    this.background.close();
    await this.cache.close();
    await this.limiters.stop();
    await this.http.close();
  }
}
