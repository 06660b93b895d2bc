import type { Dispatcher } from 'undici';
import { abortError } from './deadline.js';
import { readCapped } from './capped-body.js';
import { DEFAULT_MAX_RESPONSE_BYTES } from '../../contract/limits.js';
import { ResponseTooLargeError, TimeoutError, UpstreamUnavailableError } from '../errors.js';

export interface HttpTransportOptions {
  connectTimeoutMs: number;
  headersTimeoutMs: number;
  bodyTimeoutMs: number;
  /**
   * The whole of one attempt, headers and body: undici's bodyTimeout restarts with every chunk, so a
   * body trickling a byte at a time is cut off only by this.
   */
  attemptTimeoutMs: number;
  /** The largest body read (default DEFAULT_MAX_RESPONSE_BYTES); past it the request is aborted (ResponseTooLargeError). */
  maxResponseBytes?: number;
  userAgent: string;
  /** Environment to read proxy settings from (HTTPS_PROXY, HTTP_PROXY, NO_PROXY). */
  env?: NodeJS.ProcessEnv;
}

export interface HttpRequest {
  method: 'GET' | 'POST';
  url: URL;
  headers: Record<string, string>;
  body?: string;
  signal?: AbortSignal;
  endpoint: string;
}

export interface HttpResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

const PROXY_VARS = ['HTTPS_PROXY', 'HTTP_PROXY', 'NO_PROXY', 'https_proxy', 'http_proxy', 'no_proxy'];
/** Errors raised while connecting: the request provably never reached the upstream. */
const CONNECT_CODES = new Set([
  'UND_ERR_CONNECT_TIMEOUT',
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EADDRNOTAVAIL',
]);

// undici is a megabyte of code: it loads with the first request, not at start-up. Its exports are read
// from `default`, since the bundle's chunk for this CommonJS package exports nothing else.
let undici: Promise<typeof import('undici')> | undefined;
const loadUndici = () =>
  (undici ??= import('undici').then((m) => (m as unknown as { default?: typeof m }).default ?? m));

export function usesProxy(env: NodeJS.ProcessEnv = process.env): boolean {
  return PROXY_VARS.some((name) => (env[name] ?? '') !== '');
}

/** undici `request()` on one keep-alive dispatcher (through the proxy when the environment names one). */
export class HttpTransport {
  private dispatcher: Promise<Dispatcher> | undefined;
  readonly proxied: boolean;

  constructor(private readonly options: HttpTransportOptions) {
    this.proxied = usesProxy(options.env ?? process.env);
  }

  private dispatcherOf(): Promise<Dispatcher> {
    return (this.dispatcher ??= loadUndici().then(({ Agent, EnvHttpProxyAgent }) => {
      const { options } = this;
      const common = {
        connect: { timeout: options.connectTimeoutMs },
        headersTimeout: options.headersTimeoutMs,
        bodyTimeout: options.bodyTimeoutMs,
      };
      const env = options.env ?? process.env;
      return this.proxied
        ? new EnvHttpProxyAgent({
            ...common,
            httpProxy: env.HTTP_PROXY ?? env.http_proxy,
            httpsProxy: env.HTTPS_PROXY ?? env.https_proxy,
            noProxy: env.NO_PROXY ?? env.no_proxy,
          })
        : new Agent({ ...common, keepAliveTimeout: 30_000 });
    }));
  }

  async send(req: HttpRequest): Promise<HttpResponse> {
    if (req.signal?.aborted) throw abortError(req.signal, req.endpoint);
    // Loading the HTTP client (once, lazily) is not part of an attempt: a cold start must not eat its deadline.
    const [{ request }, dispatcher] = await Promise.all([loadUndici(), this.dispatcherOf()]);
    if (req.signal?.aborted) throw abortError(req.signal, req.endpoint);
    const attempt = AbortSignal.timeout(this.options.attemptTimeoutMs);
    try {
      // The signal also covers reading the body: undici destroys the body stream when it aborts.
      const res = await request(req.url, {
        method: req.method,
        headers: { 'user-agent': this.options.userAgent, accept: 'application/json', ...req.headers },
        body: req.body,
        signal: req.signal ? AbortSignal.any([req.signal, attempt]) : attempt,
        dispatcher,
      });
      const where = `${req.method} ${req.url.origin}${req.url.pathname}`;
      const text = await readCapped(
        res,
        this.options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES,
        req.endpoint,
        where,
      );
      return { status: res.statusCode, headers: res.headers, text };
    } catch (error) {
      if (error instanceof ResponseTooLargeError) throw error;
      if (req.signal?.aborted) throw abortError(req.signal, req.endpoint, true);
      if (attempt.aborted) {
        const where = `${req.method} ${req.url.origin}${req.url.pathname}`;
        throw new TimeoutError(
          `${where} did not finish within ${this.options.attemptTimeoutMs / 1000} s.`,
          req.endpoint,
          'attempt',
          { cause: error },
        );
      }
      throw transportError(error, req, this.proxied ? proxyFor(req.url, this.options.env ?? process.env) : undefined);
    }
  }

  async close(): Promise<void> {
    await (await this.dispatcher)?.close();
  }
}

interface Proxy {
  /** The proxy's origin, without any credentials its URL may carry. */
  origin: string;
  variable: string;
}

/** The proxy a request goes through, decided as undici's EnvHttpProxyAgent decides it; undefined when none. */
export function proxyFor(url: URL, env: NodeJS.ProcessEnv): Proxy | undefined {
  const pick = (...names: string[]) =>
    names.map((variable) => ({ variable, value: env[variable] ?? '' })).find((p) => p.value !== '');
  const chosen =
    url.protocol === 'https:'
      ? (pick('HTTPS_PROXY', 'https_proxy') ?? pick('HTTP_PROXY', 'http_proxy'))
      : pick('HTTP_PROXY', 'http_proxy');
  if (!chosen) return undefined;
  const noProxy = env.NO_PROXY ?? env.no_proxy ?? '';
  const host = url.hostname.toLowerCase();
  const port = Number(url.port) || (url.protocol === 'https:' ? 443 : 80);
  for (const entry of noProxy.split(/[,\s]/).filter(Boolean)) {
    if (entry === '*') return undefined;
    const [, name = entry, entryPort] = /^(.+):(\d+)$/.exec(entry) ?? [];
    const bare = name.replace(/^\*?\./, '').toLowerCase();
    if (entryPort && Number(entryPort) !== port) continue;
    if (host === bare || host.endsWith(`.${bare}`)) return undefined;
  }
  let origin = 'the proxy';
  try {
    const u = new URL(chosen.value);
    origin = `${u.protocol}//${u.host}`;
  } catch {
    // An unreadable proxy URL is named by its variable only: it may hold credentials.
  }
  return { origin, variable: chosen.variable };
}

function transportError(error: unknown, req: HttpRequest, proxy: Proxy | undefined): Error {
  const code = (error as { code?: string }).code ?? (error as { cause?: { code?: string } }).cause?.code ?? '';
  const detail = error instanceof Error ? error.message : String(error);
  const where = `${req.method} ${req.url.origin}${req.url.pathname}`;
  // Through a proxy, every connection this process opens goes to the proxy, never to the API itself.
  const target = proxy ? `the proxy ${proxy.origin} (set by ${proxy.variable})` : req.url.origin;
  const connectOptions = { cause: error, neverReached: true, proxyVariable: proxy?.variable };
  if (code === 'UND_ERR_CONNECT_TIMEOUT') {
    return new TimeoutError(`Connecting to ${target} timed out.`, req.endpoint, 'connect', connectOptions);
  }
  if (code === 'UND_ERR_HEADERS_TIMEOUT')
    return new TimeoutError(`${where} sent no response in time.`, req.endpoint, 'headers', { cause: error });
  if (code === 'UND_ERR_BODY_TIMEOUT')
    return new TimeoutError(`${where} stopped sending its response.`, req.endpoint, 'body', { cause: error });
  if (CONNECT_CODES.has(code)) {
    return new UpstreamUnavailableError(
      `Could not connect to ${target} (${code}).`,
      req.endpoint,
      undefined,
      connectOptions,
    );
  }
  const tunnel = proxy && /Proxy response \((\d+)\)/.exec(detail);
  if (tunnel) {
    return new UpstreamUnavailableError(
      `${target[0]!.toUpperCase()}${target.slice(1)} refused to forward the request (${tunnel[1]}).`,
      req.endpoint,
      undefined,
      connectOptions,
    );
  }
  return new UpstreamUnavailableError(
    `${where} failed: ${detail}${code ? ` (${code})` : ''}.`,
    req.endpoint,
    undefined,
    { cause: error },
  );
}
