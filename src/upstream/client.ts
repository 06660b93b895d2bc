import type { z } from 'zod';
import type { BillingPlan } from '../contract/enums.js';
import { ResponseCache, type CachedAnswer } from './cache.js';
import { Caller } from './caller.js';
import { todayOf } from './dates.js';
import type { Endpoint, ListArgs, Listing, RangeArg } from './endpoint.js';
import { changelog, type Changelog } from './endpoints/changelog.js';
import { costAnalytics, type CostAnalytics, type CostPoint, type CostQuery } from './endpoints/cost-analytics.js';
import { creditUsageByUser, type CreditDimensions, type CreditUsage } from './endpoints/credit-usage-by-user.js';
import { dailyUsage, type DailyUsage } from './endpoints/daily-usage.js';
import {
  dailyUserActivityByEditorLanguage,
  type EditorLanguage,
} from './endpoints/daily-user-activity-by-editor-language.js';
import { dau, type Dau } from './endpoints/dau.js';
import { dauCount, type DauCount } from './endpoints/dau-count.js';
import {
  getUserBudgetOverrides,
  planOf,
  type GetOverrides,
  type OverrideFilter,
} from './endpoints/get-user-budget-overrides.js';
import { setUserBudgetOverrides, type Override, type SetOverrides } from './endpoints/set-user-budget-overrides.js';
import { userActivity, type UserActivity } from './endpoints/user-activity.js';
import { HttpTransport } from './http.js';
import { DEFAULT_LIMITS, RateLimiters, type LimitsConfig } from './limiter.js';
import type { PageCaps, PageShape } from './pagination.js';
import { call, list, page, type Answer, type ListOptions, type PageArgs, type Upstream } from './requests.js';
import { DEFAULT_RETRY, type RetryConfig } from './retry.js';
import { VERSION } from '../version.js';

export type { Answer, ListOptions, PageArgs } from './requests.js';
export type { RangeArg } from './endpoint.js';
export type { CostQuery } from './endpoints/cost-analytics.js';

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

export type RawPageKind = 'dau' | 'user-activity' | 'editor-language' | 'credit-usage' | 'cost-analytics';
export interface RawPageParams extends PageArgs, CreditDimensions {
  date?: string;
  range?: RangeArg;
  cost?: CostQuery;
}
export type RawPageValue = Dau | UserActivity | EditorLanguage | CreditUsage | CostAnalytics;
const RAW_PAGE: Record<RawPageKind, Listing<z.ZodType<PageShape>, 'range' | 'date', never, unknown>> = {
  dau,
  'user-activity': userActivity,
  'editor-language': dailyUserActivityByEditorLanguage,
  'credit-usage': creditUsageByUser,
  'cost-analytics': costAnalytics,
};

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

  // The methods below are kept until the tools call list/page/call with the descriptors themselves.

  dauCount(arg: RangeArg, options: ListOptions = {}): Promise<Answer<DauCount['daily_active_user_counts']>> {
    return this.list(dauCount, arg, options);
  }

  dailyUsage(arg: RangeArg, options: ListOptions = {}): Promise<Answer<DailyUsage['daily_usage']>> {
    return this.list(dailyUsage, arg, options);
  }

  userActivity(arg: RangeArg, options: ListOptions = {}): Promise<Answer<UserActivity['users']>> {
    return this.list(userActivity, arg, options);
  }

  creditUsage(
    arg: RangeArg,
    dims: CreditDimensions,
    options: ListOptions = {},
  ): Promise<Answer<CreditUsage['records']>> {
    return this.list(creditUsageByUser, { ...arg, ...dims }, options);
  }

  activeUsers(date: string | undefined, options: ListOptions = {}): Promise<Answer<Dau['users']>> {
    return this.list(dau, { date }, options);
  }

  editorLanguage(date: string | undefined, options: ListOptions = {}): Promise<Answer<EditorLanguage['records']>> {
    return this.list(dailyUserActivityByEditorLanguage, { date }, options);
  }

  costAnalytics(arg: RangeArg, query: CostQuery = {}, options: ListOptions = {}): Promise<Answer<CostPoint[]>> {
    return this.list(costAnalytics, { ...arg, ...query }, options);
  }

  rawPage(
    kind: RawPageKind,
    { range, cost, ...rest }: RawPageParams,
    signal?: AbortSignal,
  ): Promise<CachedAnswer<RawPageValue>> {
    return this.page(RAW_PAGE[kind], { ...range, ...cost, ...rest } as never, signal) as Promise<
      CachedAnswer<RawPageValue>
    >;
  }

  getOverrides(filter: OverrideFilter = {}, signal?: AbortSignal): Promise<CachedAnswer<GetOverrides>> {
    return this.call(getUserBudgetOverrides, filter, signal);
  }

  setOverrides(overrides: Override[], signal?: AbortSignal): Promise<CachedAnswer<SetOverrides>> {
    return this.call(setUserBudgetOverrides, { overrides }, signal);
  }

  changelog(client = 'all', page = 0, signal?: AbortSignal): Promise<CachedAnswer<Changelog>> {
    return this.call(changelog, { client, page }, signal);
  }

  /** Infers the billing plan from existing overrides, when every one of them names the same resource. */
  async inferPlan(signal?: AbortSignal): Promise<BillingPlan | undefined> {
    return planOf((await this.getOverrides({}, signal)).value);
  }

  async close(): Promise<void> {
    await this.limiters.stop();
    await this.http.close();
  }
}
