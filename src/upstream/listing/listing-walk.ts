import { abortError } from '../transport/deadline.js';
import { TimeoutError } from '../errors.js';
import type { Progress } from './pagination.js';
import type { ListingAnswer, WalkPlan } from '../requests.js';

/** Where a walk stands: pages so far, pages expected, and when the whole answer should be ready. */
export interface ListingStatus {
  endpoint: string;
  pages: number;
  records: number;
  /** Pages the walk is expected to take in all; null when no earlier walk tells. */
  expected: number | null;
  /** Milliseconds from `at` until the whole answer should be ready; a lower bound when `expected` is null. */
  etaMs: number;
  /** When this was measured (epoch ms). */
  at: number;
}

export type Waited<T> = { complete: true; answer: ListingAnswer<T> } | { complete: false; status: ListingStatus };

export interface WaitOptions {
  /** The call's signal: cancelling it stops waiting (and the walk, if nobody else needs it). */
  signal: AbortSignal;
  /** How long the call waits before it answers with the status instead. */
  answerWithinMs: number;
  onStatus?: (status: ListingStatus) => void;
}

/** How long a walk may go on after its call answered: long enough for 2 years of a large organization's pages. */
export const BACKGROUND_DEADLINE_MS = 10 * 60_000;

/** The reason a finished walk's signal is aborted with: made once, since an abort without one builds a DOMException. */
const SETTLED = new Error('the listing walk has ended');

/** One walk of a listing, shared by every call that asks the same question while it runs. */
export class Walk {
  readonly result: Promise<ListingAnswer<unknown>>;
  private readonly controller = new AbortController();
  private progress: Progress = { pages: 0, records: 0 };
  private expected: number | null = null;
  private readonly arrivals: number[] = [];
  private readonly listeners = new Set<(s: ListingStatus) => void>();
  private firstPage!: () => void;
  private readonly paged = new Promise<void>((resolve) => (this.firstPage = resolve));
  private waiting = 0;
  /** A call answered "not complete yet": the walk goes on without callers, at background priority. */
  private detached = false;
  private settled = false;
  private deadline: NodeJS.Timeout | undefined;

  constructor(
    private readonly endpoint: string,
    private readonly intervalMs: number,
    run: (signal: AbortSignal, walk: Walk) => Promise<ListingAnswer<unknown>>,
    closing: AbortSignal,
    private readonly deadlineMs: number,
  ) {
    // Linked by hand rather than with AbortSignal.any: a walk is made for every listing call, cached or not.
    if (closing.aborted) this.controller.abort(closing.reason);
    else
      closing.addEventListener('abort', () => this.controller.abort(closing.reason), {
        once: true,
        signal: this.controller.signal,
      });
    const signal = this.controller.signal;
    this.result = run(signal, this).finally(() => {
      this.settled = true;
      clearTimeout(this.deadline);
      // Releases the deadline's timer and the link to `closing`; nothing listens to the signal any more.
      this.controller.abort(SETTLED);
    });
    this.result.catch(() => {});
  }

  priority = (): 'interactive' | 'background' => (this.waiting > 0 ? 'interactive' : 'background');

  onPlan = (plan: WalkPlan): void => {
    this.expected = plan.expected;
  };

  onProgress = (p: Progress): void => {
    this.progress = p;
    if (p.pages > 0) {
      this.arrivals.push(Date.now());
      if (this.arrivals.length > 6) this.arrivals.shift();
      this.firstPage();
    }
    const status = this.status();
    for (const listener of this.listeners) listener(status);
  };

  status(): ListingStatus {
    const { pages, records } = this.progress;
    // An estimate that proves low grows with the walk: at least one page more than so far, until it ends.
    const expected = this.expected === null ? null : Math.max(this.expected, pages + 1);
    const recent =
      this.arrivals.length > 1 ? (this.arrivals.at(-1)! - this.arrivals[0]!) / (this.arrivals.length - 1) : 0;
    const perPage = Math.max(this.intervalMs, recent);
    // Unknown total: at least as many pages again as so far (or one), a lower bound the message says it is.
    const left = expected === null ? Math.max(1, pages) : Math.max(1, expected - pages);
    return { endpoint: this.endpoint, pages, records, expected, etaMs: Math.ceil(left * perPage), at: Date.now() };
  }

  async wait(options: WaitOptions): Promise<Waited<unknown>> {
    const { signal } = options;
    if (signal.aborted) throw abortError(signal);
    this.waiting++;
    if (options.onStatus) {
      this.listeners.add(options.onStatus);
      options.onStatus(this.status());
    }
    let timer: NodeJS.Timeout | undefined;
    let onAbort: (() => void) | undefined;
    try {
      const done = this.result.then((answer) => ({ complete: true as const, answer }));
      // A failure after this call answered "not complete" is the next caller's to hear.
      done.catch(() => {});
      const aborted = new Promise<never>((_, reject) => {
        onAbort = () => reject(abortError(signal));
        signal.addEventListener('abort', onAbort, { once: true });
      });
      const budget = new Promise<'budget'>(
        (resolve) => (timer = setTimeout(() => resolve('budget'), options.answerWithinMs)),
      );
      const first = await Promise.race([done, aborted, budget]);
      if (first !== 'budget') return first;
      // Not one page yet: the upstream may be stuck rather than slow. Keep waiting, so the call's own
      // deadline says so, unless a page arrives and shows the walk is moving.
      if (this.progress.pages === 0) {
        const again = await Promise.race([done, aborted, this.paged.then(() => 'moving' as const)]);
        if (again !== 'moving') return again;
      }
      this.detached = true;
      // Only a walk that goes on without its caller needs a deadline of its own: most answer within the budget.
      this.deadline ??= setTimeout(
        () =>
          this.controller.abort(
            new TimeoutError(
              `The background fetch did not finish within ${Math.round(this.deadlineMs / 60_000)} min.`,
              undefined,
              'call',
            ),
          ),
        this.deadlineMs,
      ).unref();
      return { complete: false, status: this.status() };
    } finally {
      clearTimeout(timer);
      if (onAbort) signal.removeEventListener('abort', onAbort);
      if (options.onStatus) this.listeners.delete(options.onStatus);
      this.waiting--;
      // Every caller cancelled before any was told to come back: nobody will ask for this answer.
      if (this.waiting === 0 && !this.detached && !this.settled) this.controller.abort(signal.reason);
    }
  }
}
