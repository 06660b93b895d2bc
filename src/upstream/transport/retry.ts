import { abortError } from './deadline.js';
import type { UpstreamError } from '../errors.js';

export interface RetryConfig {
  /** Attempts in all, the first included. */
  maxAttempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
  /** How many times one request may wait out a 429 and try again. */
  maxRateLimitRetries: number;
}

export const DEFAULT_RETRY: RetryConfig = {
  maxAttempts: 3,
  baseDelayMs: 300,
  maxDelayMs: 5_000,
  maxRateLimitRetries: 2,
};

/**
 * Reads are retried on 5xx, resets and timeouts. A write (set-user-budget-overrides) is retried only
 * when it provably never reached the upstream: its valid entries apply even when others fail, so a
 * write that may have landed must not be sent twice. A 4xx is never retried.
 */
export function shouldRetry(error: UpstreamError, mode: 'read' | 'write'): boolean {
  if (!error.retryable || error.kind === 'rate_limited') return false;
  return mode === 'read' || error.neverReached;
}

/** Exponential backoff with jitter: a delay drawn from [d/2, d], d = base × 2^(attempt−1), capped. */
export function backoffMs(attempt: number, config: RetryConfig, random: () => number = Math.random): number {
  const ceiling = Math.min(config.maxDelayMs, config.baseDelayMs * 2 ** (attempt - 1));
  return ceiling / 2 + random() * (ceiling / 2);
}

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(abortError(signal));
    const onAbort = () => {
      clearTimeout(timer);
      reject(abortError(signal));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** Retry-After as milliseconds: delta-seconds or an HTTP date; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | string[] | undefined, now: number): number | undefined {
  const text = Array.isArray(value) ? value[0] : value;
  if (!text) return undefined;
  if (/^\d+$/.test(text.trim())) return Number(text.trim()) * 1000;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}
