import { GRANULARITIES, GROUP_BY_KEYS, type BillingPlan, type GroupByKey } from '../contract/enums.js';
import { PAGE_SIZE, type PagedEndpoint } from '../contract/limits.js';
import { formatDay } from '../util/utc-date.js';
import { ResponseCache, type CachedAnswer } from './cache.js';
import { Caller, type Operation } from './caller.js';
import { rangeText, resolveDate, resolveNamedRange, resolveRange, splitRange, todayOf, type DateRules, type DayRange, type NamedRange, type RangeInput } from './dates.js';
import { InvalidArgumentError } from './errors.js';
import { combineFreshness, type Freshness } from './freshness.js';
import { HttpTransport } from './http.js';
import { DEFAULT_LIMITS, RateLimiters, type LimitsConfig } from './limiter.js';
import { mergeCostPoints, mergeCreditUsage, mergeUserActivity } from './merge.js';
import { OPS } from './operations.js';
import { collect, type PageOptions, type Progress } from './pagination.js';
import { DEFAULT_RETRY, type RetryConfig } from './retry.js';
import type * as S from './schemas.js';
import type { z } from 'zod';
import { VERSION } from '../version.js';

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
  caps?: PageOptions['caps'];
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

export type RangeArg = RangeInput & { range?: NamedRange };

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

export interface ListOptions {
  signal?: AbortSignal;
  onProgress?: (progress: Progress) => void;
  caps?: PageOptions['caps'];
}

export interface CostQuery {
  group_by_keys?: GroupByKey[];
  granularity?: (typeof GRANULARITIES)[number];
  filters?: Partial<Record<'user_emails' | 'service_account_names' | 'product_names' | 'resource_names' | 'expert_ids', string[]>>;
}

const EMAIL = /^[^@\s]+@[^@\s]+$/;

export type RawPageKind = PagedEndpoint;
export interface RawPageParams {
  cursor?: string;
  page_size?: number;
  date?: string;
  range?: RangeArg;
  by_date?: boolean;
  by_model?: boolean;
  cost?: CostQuery;
}
export type RawPageValue = S.Dau | S.UserActivity | S.EditorLanguage | S.CreditUsage | S.CostAnalytics;

/** The upstream API: validated, rate limited, cached, paginated and merged. Knows nothing of MCP. */
export class AnalyticsClient {
  readonly caller: Caller;
  readonly limiters: RateLimiters;
  readonly cache: ResponseCache;
  private readonly http: HttpTransport;
  private readonly now: () => number;

  constructor(private readonly options: ClientOptions) {
    this.now = options.now ?? Date.now;
    this.http = new HttpTransport({
      connectTimeoutMs: options.timeouts?.connectMs ?? 10_000,
      headersTimeoutMs: options.timeouts?.headersMs ?? 30_000,
      bodyTimeoutMs: options.timeouts?.bodyMs ?? 30_000,
      attemptTimeoutMs: options.timeouts?.attemptMs ?? DEFAULT_ATTEMPT_TIMEOUT_MS,
      userAgent: `org-analytics-mcp/${VERSION} (+node ${process.version})`,
      env: options.env,
    });
    this.limiters = new RateLimiters({ ...DEFAULT_LIMITS, ...options.limits }, this.now);
    this.cache = new ResponseCache(options.cacheMaxBytes ?? 50_000_000, this.now);
    this.caller = new Caller(
      { baseUrl: options.baseUrl, siteUrl: options.siteUrl ?? new URL(options.baseUrl).origin, token: options.token, retry: { ...DEFAULT_RETRY, ...options.retry }, now: this.now, random: options.random },
      this.http,
      this.limiters,
      this.cache,
    );
  }

  today(): number {
    return todayOf(this.now());
  }

  /** Resolves explicit dates or a named range by the endpoint's rules. */
  resolve(arg: RangeArg, rules: DateRules): DayRange {
    if (arg.range !== undefined) {
      if (arg.start_date !== undefined || arg.end_date !== undefined) throw new InvalidArgumentError('Give either range or start_date/end_date, not both.');
      const named = resolveNamedRange(arg.range, rules, this.today());
      return resolveRange(rangeText(named), rules, this.today());
    }
    return resolveRange(arg, rules, this.today());
  }

  private async windows<T>(range: DayRange, fetchWindow: (w: DayRange, progress: (p: Progress) => void) => Promise<Omit<Answer<T>, 'windows'>>, options: ListOptions, merge: (parts: T[]) => T): Promise<Answer<T>> {
    const parts: Array<Omit<Answer<T>, 'windows'>> = [];
    let done: Progress = { pages: 0, records: 0 };
    for (const w of splitRange(range)) {
      const base = done;
      const part = await fetchWindow(w, (p) => options.onProgress?.({ pages: base.pages + p.pages, records: base.records + p.records }));
      parts.push(part);
      done = { pages: base.pages + part.pages, records: base.records + (Array.isArray(part.data) ? part.data.length : 0) };
    }
    return {
      data: merge(parts.map((p) => p.data)),
      start_date: parts[0]!.start_date,
      end_date: parts.at(-1)!.end_date,
      freshness: combineFreshness(parts.map((p) => p.freshness)),
      pages: parts.reduce((n, p) => n + p.pages, 0),
      truncated: parts.some((p) => p.truncated),
      windows: parts.length,
    };
  }

  private async listWindow<P extends { pagination: { next_cursor?: string; has_more: boolean }; metadata: { effective_start_date: string; effective_end_date: string } }, T>(
    op: Operation<z.ZodType<P>>,
    endpoint: PagedEndpoint,
    query: Record<string, string>,
    itemsOf: (p: P) => T[],
    options: ListOptions,
    progress: (p: Progress) => void,
  ): Promise<Omit<Answer<T[]>, 'windows'>> {
    let meta: P['metadata'] | undefined;
    const paged = await collect(
      op.endpoint,
      async (cursor) => {
        const answer = await this.caller.call(op, { query: { ...query, page_size: String(PAGE_SIZE[endpoint].max), ...(cursor ? { cursor } : {}) }, signal: options.signal });
        meta ??= answer.value.metadata;
        return answer;
      },
      itemsOf,
      { caps: { ...this.options.caps, ...options.caps }, onProgress: progress, signal: options.signal },
    );
    return { data: paged.items, start_date: meta!.effective_start_date, end_date: meta!.effective_end_date, freshness: combineFreshness(paged.freshness), pages: paged.pages, truncated: paged.truncated };
  }

  async dauCount(arg: RangeArg, options: ListOptions = {}): Promise<Answer<S.DauCount['daily_active_user_counts']>> {
    return this.windows(this.resolve(arg, 'metrics'), async (w) => single(await this.caller.call(OPS.dauCount, { query: rangeText(w), signal: options.signal }), (v) => v.daily_active_user_counts), options, (parts) => parts.flat());
  }

  async dailyUsage(arg: RangeArg, options: ListOptions = {}): Promise<Answer<S.DailyUsage['daily_usage']>> {
    return this.windows(this.resolve(arg, 'metrics'), async (w) => single(await this.caller.call(OPS.dailyUsage, { query: rangeText(w), signal: options.signal }), (v) => v.daily_usage), options, (parts) => parts.flat());
  }

  async userActivity(arg: RangeArg, options: ListOptions = {}): Promise<Answer<S.UserActivity['users']>> {
    return this.windows(this.resolve(arg, 'metrics'), (w, progress) => this.listWindow(OPS.userActivity, 'user-activity', rangeText(w), (p) => p.users, options, progress), options, mergeUserActivity);
  }

  async creditUsage(arg: RangeArg, dims: { by_date?: boolean; by_model?: boolean }, options: ListOptions = {}): Promise<Answer<S.CreditUsage['records']>> {
    const flags = { by_date: String(dims.by_date ?? false), by_model: String(dims.by_model ?? false) };
    return this.windows(this.resolve(arg, 'credit'), (w, progress) => this.listWindow(OPS.creditUsage, 'credit-usage', { ...rangeText(w), ...flags }, (p) => p.records, options, progress), options, mergeCreditUsage);
  }

  async activeUsers(date: string | undefined, options: ListOptions = {}): Promise<Answer<S.Dau['users']>> {
    const day = formatDay(resolveDate(date, this.today()));
    return this.listDay(OPS.dau, 'dau', day, (p) => p.users, options);
  }

  async editorLanguage(date: string | undefined, options: ListOptions = {}): Promise<Answer<S.EditorLanguage['records']>> {
    const day = formatDay(resolveDate(date, this.today()));
    return this.listDay(OPS.editorLanguage, 'editor-language', day, (p) => p.records, options);
  }

  private async listDay<P extends { pagination: { next_cursor?: string; has_more: boolean }; metadata: { effective_date: string } }, T>(op: Operation<z.ZodType<P>>, endpoint: PagedEndpoint, date: string, itemsOf: (p: P) => T[], options: ListOptions): Promise<Answer<T[]>> {
    let effective = date;
    const paged = await collect(
      op.endpoint,
      async (cursor) => {
        const answer = await this.caller.call(op, { query: { date, page_size: String(PAGE_SIZE[endpoint].max), ...(cursor ? { cursor } : {}) }, signal: options.signal });
        effective = answer.value.metadata.effective_date;
        return answer;
      },
      itemsOf,
      { caps: { ...this.options.caps, ...options.caps }, onProgress: options.onProgress, signal: options.signal },
    );
    return { data: paged.items, start_date: effective, end_date: effective, freshness: combineFreshness(paged.freshness), pages: paged.pages, truncated: paged.truncated, windows: 1 };
  }

  async costAnalytics(arg: RangeArg, query: CostQuery = {}, options: ListOptions = {}): Promise<Answer<S.CostPoint[]>> {
    const range = this.resolve(arg, 'cost');
    const body = costBody(query);
    const byDay = body.granularity === 'COST_ANALYTICS_TIME_GRANULARITY_DAY';
    return this.windows(
      range,
      async (w, progress) => {
        let meta: S.CostAnalytics['metadata'] | undefined;
        const paged = await collect(
          OPS.costAnalytics.endpoint,
          async (cursor) => {
            const answer = await this.caller.call(OPS.costAnalytics, { body: { ...rangeText(w), ...body, page_size: PAGE_SIZE['cost-analytics'].max, ...(cursor ? { cursor } : {}) }, signal: options.signal });
            meta ??= answer.value.metadata;
            return answer;
          },
          (p) => p.data_points,
          { caps: { ...this.options.caps, ...options.caps }, onProgress: progress, signal: options.signal },
        );
        return { data: paged.items, start_date: meta!.effective_start_date, end_date: meta!.effective_end_date, freshness: combineFreshness(paged.freshness), pages: paged.pages, truncated: paged.truncated };
      },
      options,
      (parts) => mergeCostPoints(parts, rangeText(range), byDay),
    );
  }

  /**
   * One raw upstream page, for callers that page themselves: dates resolved and checked (at most 90
   * days, since a page cannot span windows), page_size clamped to the endpoint's maximum.
   */
  async rawPage(kind: RawPageKind, params: RawPageParams, signal?: AbortSignal): Promise<CachedAnswer<RawPageValue>> {
    const size = String(Math.min(Math.max(1, params.page_size ?? PAGE_SIZE[kind].default), PAGE_SIZE[kind].max));
    const cursor: Record<string, string> = params.cursor ? { cursor: params.cursor } : {};
    if (kind === 'dau' || kind === 'editor-language') {
      const query = { date: formatDay(resolveDate(params.date, this.today())), page_size: size, ...cursor };
      return kind === 'dau' ? this.caller.call(OPS.dau, { query, signal }) : this.caller.call(OPS.editorLanguage, { query, signal });
    }
    const range = this.resolve(params.range ?? {}, kind === 'credit-usage' ? 'credit' : kind === 'cost-analytics' ? 'cost' : 'metrics');
    if (range.end - range.start + 1 > 90) throw new InvalidArgumentError('One raw page covers at most 90 days. Shorten the range, or leave out cursor and page_size so the server splits the range and pages for you.');
    if (kind === 'user-activity') return this.caller.call(OPS.userActivity, { query: { ...rangeText(range), page_size: size, ...cursor }, signal });
    if (kind === 'credit-usage') {
      const flags = { by_date: String(params.by_date ?? false), by_model: String(params.by_model ?? false) };
      return this.caller.call(OPS.creditUsage, { query: { ...rangeText(range), ...flags, page_size: size, ...cursor }, signal });
    }
    return this.caller.call(OPS.costAnalytics, { body: { ...rangeText(range), ...costBody(params.cost ?? {}), page_size: Number(size), ...cursor }, signal });
  }

  /** Budget overrides, read in real time (never cached). */
  async getOverrides(filter: { user_emails?: string[]; service_account_names?: string[]; resource?: string; period?: string } = {}, signal?: AbortSignal): Promise<CachedAnswer<S.GetOverrides>> {
    const body = Object.fromEntries(Object.entries(filter).filter(([, v]) => v !== undefined && !(Array.isArray(v) && v.length === 0)));
    return this.caller.call(OPS.getOverrides, { body, signal });
  }

  /** One set request of 1 to 5000 entries; retried only if it provably never reached the upstream. */
  async setOverrides(overrides: S.Override[], signal?: AbortSignal): Promise<CachedAnswer<S.SetOverrides>> {
    if (overrides.length < 1 || overrides.length > 5000) throw new InvalidArgumentError(`A set request takes 1 to 5000 overrides, got ${overrides.length}.`);
    return this.caller.call(OPS.setOverrides, { body: { overrides }, signal });
  }

  async changelog(client = 'all', page = 0, signal?: AbortSignal): Promise<CachedAnswer<S.Changelog>> {
    if (!Number.isSafeInteger(page) || page < 0) throw new InvalidArgumentError(`page must be a whole number of 0 or more, got ${page}.`);
    return this.caller.call(OPS.changelog, { query: { page: String(page), client }, signal });
  }

  /** Infers the billing plan from existing overrides, when every one of them names the same resource. */
  async inferPlan(signal?: AbortSignal): Promise<BillingPlan | undefined> {
    const { value } = await this.getOverrides({}, signal);
    const resources = new Set(value.overrides.map((o) => o.resource));
    if (resources.size !== 1) return undefined;
    return resources.has('BUDGET_RESOURCE_USD_COST') ? 'usd' : 'credits';
  }

  async close(): Promise<void> {
    await this.limiters.stop();
    await this.http.close();
  }
}

function single<V extends { metadata: { effective_start_date: string; effective_end_date: string } }, T>(answer: CachedAnswer<V>, rows: (v: V) => T): Omit<Answer<T>, 'windows'> {
  return { data: rows(answer.value), start_date: answer.value.metadata.effective_start_date, end_date: answer.value.metadata.effective_end_date, freshness: answer.freshness, pages: 1, truncated: false };
}

function costBody(query: CostQuery): { group_by_keys?: string[]; granularity: string; filters?: Record<string, string[]> } {
  const keys = [...new Set(query.group_by_keys ?? [])];
  for (const k of keys) if (!GROUP_BY_KEYS.includes(k)) throw new InvalidArgumentError(`Unknown group-by key '${k}'; use ${GROUP_BY_KEYS.join(', ')}.`);
  const granularity = query.granularity ?? 'COST_ANALYTICS_TIME_GRANULARITY_TOTAL';
  if (!GRANULARITIES.includes(granularity)) throw new InvalidArgumentError(`Unknown granularity '${granularity}'; use ${GRANULARITIES.join(' or ')}.`);
  const filters = Object.fromEntries(Object.entries(query.filters ?? {}).filter(([, v]) => v && v.length > 0)) as Record<string, string[]>;
  const bad = filters.user_emails?.find((e) => !EMAIL.test(e));
  if (bad !== undefined) throw new InvalidArgumentError(`'${bad}' in user_emails is not an email address.`);
  return { ...(keys.length ? { group_by_keys: keys } : {}), granularity, ...(Object.keys(filters).length ? { filters } : {}) };
}
