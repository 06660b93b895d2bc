import type { Settlement } from '../history/store/outbox/outbox-claim.js';
import type { Answer } from './http-post.js';

/** How long an alert is tried: past 24 h after its decision, it fails. */
export const GIVE_UP_MS = 24 * 3600_000;
const MAX_DELAY_MS = 3600_000;

export interface Backoff {
  /** The first retry's delay, doubled each time up to an hour; 10 s, so that it comes within 30 s even with jitter. */
  baseMs: number;
}
export const DEFAULT_BACKOFF: Backoff = { baseMs: 10_000 };

/** When the next attempt comes, after `attempts` failed ones: exponential, ±20 % so replicas' retries spread. */
export function nextAttempt(attempts: number, now: number, backoff: Backoff, retryAfterS?: number): number {
  const exp = Math.min(backoff.baseMs * 2 ** Math.max(0, attempts - 1), MAX_DELAY_MS);
  const delay = exp * (0.8 + Math.random() * 0.4);
  const asked = retryAfterS === undefined ? 0 : Math.min(retryAfterS * 1000, MAX_DELAY_MS);
  return now + Math.max(delay, asked);
}

/**
 * A receiver's answer as an outcome: 2xx ends it; a 4xx other than 408 and 429 is final; anything else (5xx,
 * 408, 429, a redirect, no answer) is tried again with backoff until 24 h after the decision.
 */
export function settlementOf(
  answer: Answer | Error,
  row: { attempts: number; createdAt: number },
  now: number,
  backoff: Backoff,
): Settlement {
  if (!(answer instanceof Error) && answer.status >= 200 && answer.status < 300) return { outcome: 'delivered' };
  const error =
    answer instanceof Error
      ? `no answer: ${answer.name === 'TimeoutError' ? 'the 10 s time limit passed' : answer.message}`.slice(0, 300)
      : `${answer.status}: ${answer.head}`;
  if (!(answer instanceof Error) && answer.status >= 400 && answer.status < 500 && ![408, 429].includes(answer.status))
    return { outcome: 'failed', error };
  const at = nextAttempt(row.attempts + 1, now, backoff, answer instanceof Error ? undefined : answer.retryAfterS);
  if (at > row.createdAt + GIVE_UP_MS) return { outcome: 'failed', error: `gave up after 24 h: ${error}` };
  return { outcome: 'retry', at, error };
}
