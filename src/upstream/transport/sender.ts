import type { z } from 'zod';
import { ResponseCache, type CachedAnswer } from '../cache/cache.js';
import type { Credential } from '../credential.js';
import { UpstreamError, UpstreamProtocolError } from '../errors.js';
import { requestKey, written, type RequestTarget, type UpstreamRequest, type Written } from '../request.js';
import { HttpTransport, type HttpRequest, type HttpResponse } from './http.js';
import { RateLimiters, type Priority } from '../limits/limiter.js';
import type { Operation, SendWith } from './operation.js';
import { withRateLimitWait } from './rate-limit-wait.js';
import { withRenewal } from './renewal.js';
import { withRetries, type RetryConfig } from './retry.js';
import { statusError } from './status-errors.js';
import { instruments } from '../../telemetry/instruments.js';
import { errorType, inSpan, SpanKind, tenantLabel, traceHeaders } from '../../telemetry/spans.js';

export interface SenderConfig {
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
  /** Kept in no cache: the sync stores each page in the history store itself. */
  uncached?: boolean;
}

/** What is sent: the call's options and the request as written. */
type Sending = CallOptions & Written;

/** Sends the upstream requests: rate limited, retried, validated, cached. Knows nothing of MCP. */
export class UpstreamSender {
  constructor(
    private readonly config: SenderConfig,
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
    if (!op.cache || callOptions.uncached) {
      const { value } = await this.send(op, options);
      return {
        value,
        freshness: { fetched_at: new Date(this.config.now()).toISOString(), from_cache: false, next_refresh_at: null },
      };
    }
    const key = requestKey(request, this.credential);
    const policy = () => op.cache!(this.config.now(), request.days, this.config.refreshHour);
    // The load runs on the cache's signal, not this call's: other calls may be waiting on it too.
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

  /** `budget`: the signal whose deadline bounds waits (the call's own, also when the request runs on the cache's). */
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
    } finally {
      // Past the first send, each one is a retry: after a 429, a renewed login or a failure.
      if (sent > 1) instruments().retries.add(sent - 1, { endpoint: op.name, ...tenantLabel() });
    }
  }

  /** One request: each send rate limited, 429s waited out, a 401 renewed once, failures retried by the policy. */
  private async sendWithRetries<S extends z.ZodType>(
    op: Operation<S>,
    options: Sending,
    budget: AbortSignal | undefined,
    counted: () => void,
  ): Promise<{ value: z.output<S>; bytes: number }> {
    const { credential, retry, now, random } = this.config;
    const { signal } = options;
    const limits = { op, limiters: this.limiters, credential: this.credential, now, budget, signal };
    const waited = withRateLimitWait(
      { ...limits, maxWaits: retry.maxRateLimitRetries },
      this.sender(op, options, counted),
    );
    // The changelog is public: no credential is sent to the site, nor a login required for it.
    const bearer = op.host === 'api' ? await credential.bearer(signal) : undefined;
    const renewing = withRenewal(credential, bearer, signal, waited);
    const policy = { config: retry, mode: op.retry, signal, random };
    return withRetries(policy, async () => this.parse(op, await renewing()))();
  }

  /** The request built once (URL, body); each send of it waits for its group's token, and is counted. */
  private sender(op: Operation<z.ZodType>, options: Sending, counted: () => void): SendWith {
    const { signal, priority } = options;
    const request = {
      method: op.method,
      url: this.urlOf(op, options.query),
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
      signal,
      endpoint: op.name,
    };
    const headers = (bearer: string | undefined): Record<string, string> => ({
      ...(bearer ? { authorization: `Bearer ${bearer}` } : {}),
      ...(options.body !== undefined ? { 'content-type': 'application/json' } : {}),
    });
    return (bearer) => {
      const send = () => {
        counted();
        return this.attempt(op, { ...request, headers: headers(bearer) });
      };
      return op.group ? this.limiters.schedule(op.group, send, signal, priority, this.credential) : send();
    };
  }

  /**
   * One HTTP send, in a client span whose trace context goes with it as `traceparent` (the caller's, when traces
   * are not exported), counted by endpoint and status, and timed.
   */
  private attempt(op: Operation<z.ZodType>, request: HttpRequest): Promise<HttpResponse> {
    const labels = { endpoint: op.name, ...tenantLabel() };
    const method = { 'http.request.method': op.method };
    return inSpan(
      `${op.method} ${op.name}`,
      { ...method, 'url.path': op.path, 'org_analytics.endpoint': op.name },
      async (span) => {
        const started = performance.now();
        let status: string | number = 'error';
        try {
          const res = await this.http.send({ ...request, headers: { ...request.headers, ...traceHeaders() } });
          status = res.status;
          span?.setAttribute('http.response.status_code', res.status);
          if (res.status === 429) instruments().rateLimited.add(1, { group: op.group ?? 'none', ...labels });
          return res;
        } catch (error) {
          status = errorType(error);
          throw error;
        } finally {
          const outcome =
            typeof status === 'number' ? { 'http.response.status_code': status } : { 'error.type': status };
          instruments().upstreamRequests.add(1, { ...labels, status: String(status) });
          instruments().upstreamDuration.record((performance.now() - started) / 1000, {
            ...method,
            ...labels,
            ...outcome,
          });
        }
      },
      SpanKind.CLIENT,
    );
  }

  private urlOf(op: Operation<z.ZodType>, query: Record<string, string> = {}): URL {
    const base = op.host === 'api' ? this.config.baseUrl : this.config.siteUrl;
    const url = new URL(base.replace(/\/+$/, '') + op.path);
    for (const [k, v] of Object.entries(query)) url.searchParams.set(k, v);
    return url;
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
