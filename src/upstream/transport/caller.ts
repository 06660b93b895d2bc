import type { z } from 'zod';
import type { RateGroup } from '../../contract/limits.js';
import { ResponseCache, type CachedAnswer } from '../cache/cache.js';
import type { Credential } from '../credential.js';
import { remainingMs } from './deadline.js';
import { RateLimitedError, UpstreamError, UpstreamProtocolError } from '../errors.js';
import type { CachePolicy } from '../../domain/freshness.js';
import type { DayRange } from '../../domain/dates.js';
import { requestKey, written, type RequestTarget, type UpstreamRequest, type Written } from '../request.js';
import { HttpTransport, type HttpResponse } from './http.js';
import { RateLimiters, type Priority } from '../limits/limiter.js';
import { statusError } from './status-errors.js';
import { backoffMs, parseRetryAfter, shouldRetry, sleep, type RetryConfig } from './retry.js';

/** One upstream endpoint: where it is, how it is limited, retried, cached and validated. */
export interface Operation<S extends z.ZodType> {
  /** The last segment of its path, as messages and errors name it. */
  name: string;
  method: 'GET' | 'POST';
  path: string;
  host: 'api' | 'site';
  /** null: not rate limited (the public changelog). */
  group: RateGroup | null;
  retry: 'read' | 'write';
  schema: S;
  /** null: never cached (budget reads and writes). `days`: the request's; `refreshHour`: the daily refresh hour (UTC). */
  cache: ((now: number, days: DayRange | undefined, refreshHour: number) => CachePolicy) | null;
}

export interface CallerConfig {
  baseUrl: string;
  siteUrl: string;
  credential: Credential;
  retry: RetryConfig;
  now: () => number;
  /** The hour (UTC) from which yesterday's daily figures are published: cached daily answers expire then. */
  refreshHour: number;
  random?: () => number;
}

export interface CallOptions {
  signal?: AbortSignal;
  /** Default interactive: ahead of background (warm-up, completion). */
  priority?: Priority;
}

/** What is sent: the call's options and the request as written. */
type Sending = CallOptions & Written;

/** Sends requests: rate limited, retried, validated, cached. Knows nothing of MCP. */
export class Caller {
  constructor(
    private readonly config: CallerConfig,
    private readonly http: HttpTransport,
    private readonly limiters: RateLimiters,
    private readonly cache: ResponseCache,
  ) {}

  /** A fingerprint of the credential (never a secret): cache keys, Redis buckets and file names carry it. */
  get credential(): string {
    return this.config.credential.fingerprint();
  }

  async call<S extends z.ZodType>(
    request: UpstreamRequest<Operation<S> & RequestTarget>,
    callOptions: CallOptions = {},
  ): Promise<CachedAnswer<z.output<S>>> {
    const { op } = request;
    const options: Sending = { ...callOptions, ...written(request) };
    if (!op.cache) {
      const { value } = await this.send(op, options);
      return {
        value,
        freshness: { fetched_at: new Date(this.config.now()).toISOString(), from_cache: false, next_refresh_at: null },
      };
    }
    const key = requestKey(request, this.credential);
    const policy = () => op.cache!(this.config.now(), request.days, this.config.refreshHour);
    // The load runs on the cache's signal, not this caller's: other callers may be waiting on it too.
    // Its waits still keep within the budget of the call that started it.
    return this.cache.get(
      key,
      policy,
      (signal) => this.send(op, { ...options, signal }, options.signal),
      options.signal,
      // What Redis or the disk hand back is checked like a response: a damaged entry is refetched, never served.
      (stored) => op.schema.parse(stored),
    );
  }

  /** `budget`: the signal whose deadline bounds waits (the caller's own, also when the request runs on the cache's). */
  private async send<S extends z.ZodType>(
    op: Operation<S>,
    options: Sending,
    budget = options.signal,
  ): Promise<{ value: z.output<S>; bytes: number }> {
    let sent = 0;
    try {
      return await this.sendWithRetries(op, options, budget, () => sent++);
    } catch (error) {
      if (error instanceof UpstreamError)
        error.request ??= {
          host: op.host,
          write: op.retry === 'write',
          attempts: sent,
          credential: this.config.credential.kind,
        };
      throw error;
    }
  }

  private async sendWithRetries<S extends z.ZodType>(
    op: Operation<S>,
    options: Sending,
    budget: AbortSignal | undefined,
    counted: () => void,
  ): Promise<{ value: z.output<S>; bytes: number }> {
    const base = op.host === 'api' ? this.config.baseUrl : this.config.siteUrl;
    const url = new URL(base.replace(/\/+$/, '') + op.path);
    for (const [k, v] of Object.entries(options.query ?? {})) url.searchParams.set(k, v);
    const { credential } = this.config;
    // The changelog is public: no credential is sent to the site, nor a login required for it.
    let bearer = op.host === 'api' ? await credential.bearer(options.signal) : undefined;
    let renewed = false;
    const headers = (): Record<string, string> => ({
      ...(bearer ? { authorization: `Bearer ${bearer}` } : {}),
      ...(options.body !== undefined ? { 'content-type': 'application/json' } : {}),
    });
    const request = {
      method: op.method,
      url,
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
      signal: options.signal,
      endpoint: op.name,
    };

    let attempt = 0;
    let rateLimited = 0;
    for (;;) {
      attempt++;
      try {
        const send = () => {
          counted();
          return this.http.send({ ...request, headers: headers() });
        };
        const res = op.group
          ? await this.limiters.schedule(op.group, send, options.signal, options.priority, this.credential)
          : await send();
        if (res.status === 429) {
          await this.waitOutRateLimit(op, res, ++rateLimited, budget, options.signal);
          attempt--;
          continue;
        }
        // A 401 means the request was refused before anything happened, so even a write may go again, once.
        if (res.status === 401 && bearer && !renewed) {
          renewed = true;
          // Its failure (the sign-in service down, the login revoked) is the answer: not a reason to resend.
          const next = await credential.renew(bearer, options.signal).catch((error: unknown) => {
            throw new RenewFailed(error);
          });
          if (next !== undefined) {
            bearer = next;
            attempt--;
            continue;
          }
        }
        return this.parse(op, res);
      } catch (error) {
        if (error instanceof RenewFailed) throw error.cause;
        if (
          !(error instanceof UpstreamError) ||
          !shouldRetry(error, op.retry) ||
          attempt >= this.config.retry.maxAttempts ||
          options.signal?.aborted
        )
          throw error;
        await sleep(backoffMs(attempt, this.config.retry, this.config.random), options.signal);
      }
    }
  }

  /**
   * After a 429: waits as long as Retry-After says (or the documented block), unless that is more than
   * the retries allow or the call's budget has left, in which case it fails at once with the time to retry.
   * Rate-limited groups wait through their limiter, so that every request of the group waits too.
   */
  private async waitOutRateLimit(
    op: Operation<z.ZodType>,
    res: HttpResponse,
    count: number,
    budget: AbortSignal | undefined,
    signal: AbortSignal | undefined,
  ): Promise<void> {
    const retryAfter = parseRetryAfter(res.headers['retry-after'], this.config.now());
    const waitMs = retryAfter ?? this.limiters.config.blockMs;
    const until = op.group
      ? await this.limiters.pause(op.group, retryAfter, this.credential)
      : this.config.now() + waitMs;
    const blocked = (why: string) =>
      new RateLimitedError(
        `The upstream rate limit for ${op.name} is exhausted${why}; requests are blocked until about ${new Date(until).toISOString()}.`,
        op.name,
        until,
      );
    if (count > this.config.retry.maxRateLimitRetries) throw blocked('');
    if (waitMs > remainingMs(budget)) throw blocked(' and the wait is longer than this call has left');
    if (!op.group) await sleep(waitMs, signal);
  }

  private parse<S extends z.ZodType>(op: Operation<S>, res: HttpResponse): { value: z.output<S>; bytes: number } {
    if (res.status >= 200 && res.status < 300) {
      let json: unknown;
      try {
        json = JSON.parse(res.text);
      } catch {
        throw new UpstreamProtocolError(
          `${op.name} answered ${res.status} with a body that is not valid JSON.`,
          op.name,
        );
      }
      const parsed = op.schema.safeParse(json);
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        throw new UpstreamProtocolError(
          `${op.name} answered with an unexpected shape: ${issue?.path.join('.') || '(body)'}: ${issue?.message}.`,
          op.name,
        );
      }
      return { value: parsed.data, bytes: Buffer.byteLength(res.text) };
    }
    throw statusError(op, res, this.config.now());
  }
}

/** Carries a failed renewal past the retry loop unchanged. */
class RenewFailed extends Error {
  constructor(override readonly cause: unknown) {
    super('renewal failed');
  }
}
