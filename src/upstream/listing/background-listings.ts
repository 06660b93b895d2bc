import { setMaxListeners } from 'node:events';
import type { z } from 'zod';
import type { RateGroup } from '../../contract/limits.js';
import type { Listing } from '../endpoint.js';
import { CancelledError } from '../errors.js';
import { list, type ListingRequest, type Upstream } from '../requests.js';
import { requestKey } from '../request.js';
import { MemoryPageEstimates, type PageEstimates } from './page-estimates.js';
import { BACKGROUND_DEADLINE_MS, Walk, type WaitOptions, type Waited } from './listing-walk.js';
import type { PageShape } from './pagination.js';

export { BACKGROUND_DEADLINE_MS, type ListingStatus, type WaitOptions, type Waited } from './listing-walk.js';

type AnyListing = Listing<z.ZodType<PageShape>, 'range' | 'date', never, unknown>;

/**
 * Listings that may outlive the call that started them. A call waits for its listing up to its budget;
 * past it the walk goes on here, on its own signal and deadline, into the cache, and the call answers
 * when it should be ready. A call with the same request joins the running walk instead of starting another.
 * One per upstream client: every server instance built on it (one per connection) shares its walks.
 */
export class BackgroundListings {
  estimates: PageEstimates = new MemoryPageEstimates();
  private readonly walks = new Map<string, Walk>();
  private readonly closing = new AbortController();

  constructor(
    private readonly upstream: Upstream,
    /** Requests a minute the group allows: how fast a walk can go, for its estimate. */
    private readonly perMinute: (group: RateGroup) => number,
    private readonly deadlineMs = BACKGROUND_DEADLINE_MS,
  ) {
    // Every walk in flight listens to it until it settles, and a question by team walks one listing per part.
    setMaxListeners(0, this.closing.signal);
  }

  /** Every page of the request (see AnalyticsClient.list), or where the walk stands once the budget has passed. */
  async list<E extends AnyListing>(
    request: ListingRequest<E>,
    options: WaitOptions,
  ): Promise<Waited<ReturnType<E['items']>>> {
    const listing = request.op;
    // A walk begun before the daily refresh is not joined after it: its pages may predate the new figures.
    const { published, today } = this.upstream.days();
    const key = requestKey(request, `walk|${published}|${today}`);
    let walk = this.walks.get(key);
    if (!walk) {
      const perMinute = listing.group ? this.perMinute(listing.group) : Infinity;
      walk = new Walk(
        listing.name,
        60_000 / perMinute,
        (signal, w) =>
          list(this.upstream, request, {
            signal,
            onProgress: w.onProgress,
            onPlan: w.onPlan,
            priority: w.priority,
            estimates: this.estimates,
          }),
        this.closing.signal,
        this.deadlineMs,
      );
      const started = walk;
      this.walks.set(key, started);
      void started.result
        .catch(() => {})
        .finally(() => {
          if (this.walks.get(key) === started) this.walks.delete(key);
        });
    }
    return walk.wait(options) as Promise<Waited<ReturnType<E['items']>>>;
  }

  /** How many walks are under way (for logs and tests). */
  get running(): number {
    return this.walks.size;
  }

  /** Stops every walk: the server is shutting down. */
  close(): void {
    this.closing.abort(new CancelledError('The server is shutting down.'));
  }
}
