import type { z } from 'zod';
import { RateLimitedError } from '../errors.js';
import type { RateLimiters } from '../limits/limiter.js';
import { remainingMs } from './deadline.js';
import type { HttpResponse } from './http.js';
import type { Operation, SendWith } from './operation.js';
import { sleep } from './retry.js';

export interface RateLimitWait {
  op: Operation<z.ZodType>;
  limiters: RateLimiters;
  /** The credential's fingerprint: the limiter's bucket. */
  credential: string;
  now: () => number;
  /** How many 429s one call waits out before it fails. */
  maxWaits: number;
  /** The signal whose deadline bounds the waits (the caller's own, also when the request runs on the cache's). */
  budget: AbortSignal | undefined;
  signal: AbortSignal | undefined;
}

/** Sends, and after each 429 waits it out and sends again; the count of waits is kept across the call's sends. */
export function withRateLimitWait(wait: RateLimitWait, send: SendWith): SendWith {
  let waits = 0;
  return async (bearer) => {
    for (;;) {
      const res = await send(bearer);
      if (res.status !== 429) return res;
      await waitOut(wait, res, ++waits);
    }
  };
}

/**
 * Waits as long as Retry-After says (or the documented block), unless that is more than the call may wait
 * or its budget has left, in which case it fails at once with the time to retry. Rate-limited groups wait
 * through their limiter, so that every request of the group waits too.
 */
async function waitOut(wait: RateLimitWait, res: HttpResponse, count: number): Promise<void> {
  const { op, limiters } = wait;
  const retryAfter = parseRetryAfter(res.headers['retry-after'], wait.now());
  const waitMs = retryAfter ?? limiters.config.blockMs;
  const until = op.group ? await limiters.pause(op.group, retryAfter, wait.credential) : wait.now() + waitMs;
  const blocked = (why: string) =>
    new RateLimitedError(
      `The upstream rate limit for ${op.name} is exhausted${why}; requests are blocked until about ${new Date(until).toISOString()}.`,
      op.name,
      until,
    );
  if (count > wait.maxWaits) throw blocked('');
  if (waitMs > remainingMs(wait.budget)) throw blocked(' and the wait is longer than this call has left');
  if (!op.group) await sleep(waitMs, wait.signal);
}

/** Retry-After as milliseconds: delta-seconds or an HTTP date; undefined when absent or unreadable. */
function parseRetryAfter(value: string | string[] | undefined, now: number): number | undefined {
  const text = Array.isArray(value) ? value[0] : value;
  if (!text) return undefined;
  if (/^\d+$/.test(text.trim())) return Number(text.trim()) * 1000;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}
