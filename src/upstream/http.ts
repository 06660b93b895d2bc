import { Agent, EnvHttpProxyAgent, request, type Dispatcher } from 'undici';
import { CancelledError, TimeoutError, UpstreamUnavailableError } from './errors.js';

export interface HttpOptions {
  connectTimeoutMs: number;
  headersTimeoutMs: number;
  bodyTimeoutMs: number;
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
const CONNECT_CODES = new Set(['UND_ERR_CONNECT_TIMEOUT', 'ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'EADDRNOTAVAIL']);

export function usesProxy(env: NodeJS.ProcessEnv = process.env): boolean {
  return PROXY_VARS.some((name) => (env[name] ?? '') !== '');
}

/** undici `request()` on one keep-alive dispatcher (through the proxy when the environment names one). */
export class HttpTransport {
  private readonly dispatcher: Dispatcher;

  constructor(private readonly options: HttpOptions) {
    const common = { connect: { timeout: options.connectTimeoutMs }, headersTimeout: options.headersTimeoutMs, bodyTimeout: options.bodyTimeoutMs };
    const env = options.env ?? process.env;
    this.dispatcher = usesProxy(env)
      ? new EnvHttpProxyAgent({ ...common, httpProxy: env.HTTP_PROXY ?? env.http_proxy, httpsProxy: env.HTTPS_PROXY ?? env.https_proxy, noProxy: env.NO_PROXY ?? env.no_proxy })
      : new Agent({ ...common, keepAliveTimeout: 30_000 });
  }

  get proxied(): boolean {
    return this.dispatcher instanceof EnvHttpProxyAgent;
  }

  async send(req: HttpRequest): Promise<HttpResponse> {
    if (req.signal?.aborted) throw new CancelledError('The request was cancelled.', req.endpoint);
    try {
      const res = await request(req.url, {
        method: req.method,
        headers: { 'user-agent': this.options.userAgent, accept: 'application/json', ...req.headers },
        body: req.body,
        signal: req.signal,
        dispatcher: this.dispatcher,
      });
      const text = await res.body.text();
      return { status: res.statusCode, headers: res.headers, text };
    } catch (error) {
      throw transportError(error, req);
    }
  }

  close(): Promise<void> {
    return this.dispatcher.close();
  }
}

function transportError(error: unknown, req: HttpRequest): Error {
  if (req.signal?.aborted) return new CancelledError('The request was cancelled while it was in flight.', req.endpoint, true);
  const code = (error as { code?: string }).code ?? (error as { cause?: { code?: string } }).cause?.code ?? '';
  const detail = error instanceof Error ? error.message : String(error);
  const where = `${req.method} ${req.url.origin}${req.url.pathname}`;
  if (code === 'UND_ERR_CONNECT_TIMEOUT') {
    return new TimeoutError(`Connecting to ${req.url.origin} timed out.`, req.endpoint, 'connect', { cause: error, neverReached: true });
  }
  if (code === 'UND_ERR_HEADERS_TIMEOUT') return new TimeoutError(`${where} sent no response in time.`, req.endpoint, 'headers', { cause: error });
  if (code === 'UND_ERR_BODY_TIMEOUT') return new TimeoutError(`${where} stopped sending its response.`, req.endpoint, 'body', { cause: error });
  if (CONNECT_CODES.has(code)) {
    return new UpstreamUnavailableError(`Could not connect to ${req.url.origin} (${code}).`, req.endpoint, undefined, { cause: error, neverReached: true });
  }
  return new UpstreamUnavailableError(`${where} failed: ${detail}${code ? ` (${code})` : ''}.`, req.endpoint, undefined, { cause: error });
}
