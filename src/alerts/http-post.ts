import type { Dispatcher } from 'undici';
import { usesProxy } from '../upstream/transport/http.js';
import { VERSION } from '../version.js';

/** What a receiver answered: its status and the start of its body (for a final refusal's log). */
export interface Answer {
  status: number;
  /** The first 200 characters of the body. */
  head: string;
  /** Seconds a 429 or 503 asked to wait (Retry-After), if it said. */
  retryAfterS?: number;
}

/** A delivery's time limit, the whole request and answer. */
export const DELIVERY_TIMEOUT_MS = 10_000;

let undici: Promise<typeof import('undici')> | undefined;
const loadUndici = () =>
  (undici ??= import('undici').then((m) => (m as unknown as { default?: typeof m }).default ?? m));
/** Through HTTPS_PROXY / HTTP_PROXY (and past NO_PROXY) as the upstream's requests go, when they are set. */
let proxy: Dispatcher | undefined;

/**
 * POSTs JSON and reads at most a little of the answer. Redirects are not followed (undici's request does not):
 * a 3xx is an answer like another. Throws on no answer within the time limit or a network failure.
 */
export async function postJson(
  url: URL,
  body: string,
  headers: Record<string, string>,
  timeoutMs = DELIVERY_TIMEOUT_MS,
): Promise<Answer> {
  const { request, EnvHttpProxyAgent } = await loadUndici();
  if (usesProxy()) proxy ??= new EnvHttpProxyAgent();
  const res = await request(url, {
    ...(proxy ? { dispatcher: proxy } : {}),
    method: 'POST',
    headers: { 'content-type': 'application/json', 'user-agent': `org-analytics-mcp/${VERSION}`, ...headers },
    body,
    signal: AbortSignal.timeout(timeoutMs),
  });
  let head = '';
  for await (const chunk of res.body) {
    head += String(chunk);
    if (head.length >= 200) break;
  }
  res.body.destroy();
  const retryAfter = Number(res.headers['retry-after']);
  return {
    status: res.statusCode,
    head: head.slice(0, 200),
    ...(Number.isFinite(retryAfter) && retryAfter >= 0 ? { retryAfterS: retryAfter } : {}),
  };
}
