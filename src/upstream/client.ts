import type { z } from 'zod';
import { ResponseCache, type CachedAnswer } from './cache.js';
import { Caller } from './caller.js';
import { todayOf } from './dates.js';
import type { Endpoint, ListArgs, Listing } from './endpoint.js';
import { HttpTransport } from './http.js';
import { DEFAULT_LIMITS, RateLimiters, type LimitsConfig } from './limiter.js';
import type { PageCaps, PageShape } from './pagination.js';
import { call, list, page, type Answer, type ListOptions, type PageArgs, type Upstream } from './requests.js';
import { DEFAULT_RETRY, type RetryConfig } from './retry.js';
import { VERSION } from '../version.js';

export type { Answer, ListOptions, PageArgs } from './requests.js';

export interface ClientOptions {
  baseUrl: string;
  /** Host of the public changelog; defaults to the base URL's origin. */
  siteUrl?: string;
  token: string;
  /** attemptMs: the whole of one request, headers and body (see DEFAULT_ATTEMPT_TIMEOUT_MS). */
  timeouts?: Partial<{ connectMs: number; headersMs: number; bodyMs: number; attemptMs: number }>;
  retry?: Partial<RetryConfig>;
  limits?: Partial<LimitsConfig>;
  /** Upper bound of the response cache, in bytes of response bodies. */
  cacheMaxBytes?: number;
  caps?: Partial<PageCaps>;
  /** The clock (epoch ms); tests inject one. */
  now?: () => number;
  random?: () => number;
  env?: NodeJS.ProcessEnv;
}

/**
 * A healthy page answers in well under a second; 15 s per attempt leaves a hanging upstream room for two
 * attempts and their backoff inside the default 42 s call budget, which itself ends before the 60 s
 * after which MCP clients give up, so the model hears why instead of a client timeout.
 */
export const DEFAULT_ATTEMPT_TIMEOUT_MS = 15_000;

/** The upstream API: validated, rate limited, cached, paginated and merged. Knows nothing of MCP. */
export class AnalyticsClient {
  readonly caller: Caller;
  readonly limiters: RateLimiters;
  readonly cache: ResponseCache;
  private readonly http: HttpTransport;
  private readonly upstream: Upstream;

  constructor(options: ClientOptions) {
    const now = options.now ?? Date.now;
    this.http = new HttpTransport({
      connectTimeoutMs: options.timeouts?.connectMs ?? 10_000,
      headersTimeoutMs: options.timeouts?.headersMs ?? 30_000,
      bodyTimeoutMs: options.timeouts?.bodyMs ?? 30_000,
      attemptTimeoutMs: options.timeouts?.attemptMs ?? DEFAULT_ATTEMPT_TIMEOUT_MS,
      userAgent: `org-analytics-mcp/${VERSION} (+node ${process.version})`,
      env: options.env,
    });
    this.limiters = new RateLimiters({ ...DEFAULT_LIMITS, ...options.limits }, now);
    this.cache = new ResponseCache(options.cacheMaxBytes ?? 50_000_000, now);
    const { baseUrl, siteUrl = new URL(baseUrl).origin, token, random } = options;
    this.caller = new Caller(
      { baseUrl, siteUrl, token, retry: { ...DEFAULT_RETRY, ...options.retry }, now, random },
      this.http,
      this.limiters,
      this.cache,
    );
    this.upstream = { caller: this.caller, today: () => todayOf(now()), caps: options.caps };
  }

  /** Today's UTC day number. */
  today(): number {
    return this.upstream.today();
  }

  /** Every page of every window of a listing, merged by its rule (see Listing). */
  list<E extends Listing<z.ZodType<PageShape>, 'range' | 'date', never, unknown>>(
    listing: E,
    args: ListArgs<E>,
    options: ListOptions = {},
  ): Promise<Answer<ReturnType<E['items']>>> {
    return list(this.upstream, listing, args, options);
  }

  /** One raw page of a listing, for callers that page themselves: at most 90 days, page_size clamped. */
  page<E extends Listing<z.ZodType<PageShape>, 'range' | 'date', never, unknown>>(
    listing: E,
    args: ListArgs<E> & PageArgs,
    signal?: AbortSignal,
  ): Promise<CachedAnswer<z.output<E['schema']>>> {
    return page(this.upstream, listing, args, signal);
  }

  /** One request to an operation without dates (budget overrides, the changelog). */
  call<S extends z.ZodType, P>(
    endpoint: Endpoint<S, P>,
    args: P,
    signal?: AbortSignal,
  ): Promise<CachedAnswer<z.output<S>>> {
    return call(this.upstream, endpoint, args, signal);
  }

  async close(): Promise<void> {
    await this.limiters.stop();
    await this.http.close();
  }
}
