import { setMaxListeners } from 'node:events';
import { CancelledError, TimeoutError, type UpstreamError } from '../errors.js';

/** When each budgeted signal runs out (epoch ms, real time: injected clocks may be frozen or simulated). */
const deadlines = new WeakMap<AbortSignal, number>();

/**
 * The budget of one call: a signal that aborts when `parent` does (a cancellation) or when `ms` have
 * passed (a TimeoutError as the reason). Everything below takes this one signal, so the budget is
 * enforced in one place, and anything can ask how much of it is left.
 */
export function withDeadline(parent: AbortSignal | undefined, ms: number): AbortSignal {
  const controller = new AbortController();
  const seconds = Number((ms / 1000).toFixed(1));
  const timer = setTimeout(
    () =>
      controller.abort(
        new TimeoutError(`No complete answer within this call's ${seconds} s budget.`, undefined, 'call'),
      ),
    ms,
  );
  timer.unref();
  controller.signal.addEventListener('abort', () => clearTimeout(timer), { once: true });
  if (parent?.aborted) controller.abort(parent.reason);
  else
    parent?.addEventListener('abort', () => controller.abort(parent.reason), { once: true, signal: controller.signal });
  deadlines.set(controller.signal, Date.now() + ms);
  return controller.signal;
}

/**
 * The signal of one tool call: its budget (see withDeadline), also aborted by `end` once the call has
 * failed, so that the requests it started and that still wait behind the rate limit are dropped, not sent.
 */
export function callSignal(parent: AbortSignal | undefined, ms: number): { signal: AbortSignal; end: () => void } {
  const ended = new AbortController();
  const signal = withDeadline(parent ? AbortSignal.any([parent, ended.signal]) : ended.signal, ms);
  // Every request of the call listens to its signal, and a profile or an overview has dozens at once.
  setMaxListeners(256, signal);
  const end = () => ended.abort(new CancelledError('The call ended in an error; nobody reads its other requests.'));
  return { signal, end };
}

/** Milliseconds left of the signal's budget; Infinity when it has none. */
export function remainingMs(signal: AbortSignal | undefined): number {
  const at = signal && deadlines.get(signal);
  return at === undefined ? Number.POSITIVE_INFINITY : Math.max(0, at - Date.now());
}

/** Whether the signal was aborted because its budget ran out (not by a cancellation). */
export function budgetExpired(signal: AbortSignal | undefined): boolean {
  return signal?.aborted === true && signal.reason instanceof TimeoutError && signal.reason.phase === 'call';
}

/**
 * The error for work stopped by an aborted signal: a TimeoutError when the call's budget ran out, a
 * CancelledError when the client cancelled. `afterSend`: the request was already on its way.
 */
export function abortError(signal: AbortSignal | undefined, endpoint?: string, afterSend = false): UpstreamError {
  if (budgetExpired(signal)) {
    return new TimeoutError((signal!.reason as TimeoutError).message, endpoint, 'call', { neverReached: !afterSend });
  }
  return new CancelledError(
    afterSend ? 'The request was cancelled while it was in flight.' : 'The request was cancelled.',
    endpoint,
    afterSend,
  );
}
