import { abortError } from './deadline.js';
import { UpstreamError } from '../errors.js';

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

export interface RetryPolicy {
  config: RetryConfig;
  mode: 'read' | 'write';
  signal?: AbortSignal;
  random?: () => number;
}

/**
 * Runs `attempt`, and again after a backoff while its failure may pass (shouldRetry), up to the attempts
 * the policy allows. A failure wrapped by notRetried ends it at once, as it is.
 */
export function withRetries<T>(policy: RetryPolicy, attempt: () => Promise<T>): () => Promise<T> {
  return async () => {
    for (let n = 1; ; n++) {
      try {
        return await attempt();
      } catch (error) {
        if (error instanceof NotRetried) throw error.cause;
        const again =
          error instanceof UpstreamError &&
          shouldRetry(error, policy.mode) &&
          n < policy.config.maxAttempts &&
          !policy.signal?.aborted;
        if (!again) throw error;
        await sleep(backoffMs(n, policy.config, policy.random), policy.signal);
      }
    }
  };
}

/** Throws `error` past withRetries unchanged, whatever its kind: a step whose failure is the answer (a renewal). */
export function notRetried(error: unknown): never {
  throw new NotRetried(error);
}

class NotRetried extends Error {
  constructor(override readonly cause: unknown) {
    super('not retried');
  }
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
