import { join } from 'node:path';
import type { z } from 'zod';
import type { AnalyticsClient } from '../client.js';
import type { ListArgs, Listing } from '../endpoint.js';
import { CancelledError } from '../errors.js';
import { canonicalKey } from '../cache/canonical-key.js';
import { FilePageEstimates, MemoryPageEstimates, type PageEstimates } from './page-estimates.js';
import { BACKGROUND_DEADLINE_MS, Walk, type WaitOptions, type Waited } from './listing-walk.js';
import type { PageShape } from './pagination.js';

export { BACKGROUND_DEADLINE_MS, type ListingStatus, type WaitOptions, type Waited } from './listing-walk.js';

type AnyListing = Listing<z.ZodType<PageShape>, 'range' | 'date', never, unknown>;

/**
 * Listings that may outlive the call that started them. A call waits for its listing up to its budget;
 * past it the walk goes on here, on its own signal and deadline, into the cache, and the call answers
 * when it should be ready. A call with the same question joins the running walk instead of starting another.
 */
export class BackgroundListings {
  estimates: PageEstimates = new MemoryPageEstimates();
  private readonly walks = new Map<string, Walk>();
  private readonly closing = new AbortController();

  constructor(
    private readonly client: AnalyticsClient,
    private readonly deadlineMs = BACKGROUND_DEADLINE_MS,
  ) {}

  /** Every page of the listing (see AnalyticsClient.list), or where the walk stands once the budget has passed. */
  async list<E extends AnyListing>(
    listing: E,
    args: ListArgs<E>,
    options: WaitOptions,
  ): Promise<Waited<ReturnType<E['items']>>> {
    const key = `${listing.name}|${this.client.days().published}|${this.client.today()}|${canonicalKey(args)}`;
    let walk = this.walks.get(key);
    if (!walk) {
      const perMinute = listing.group ? this.client.limiters.config[listing.group].perMinute : Infinity;
      walk = new Walk(
        listing.name,
        60_000 / perMinute,
        (signal, w) =>
          this.client.list(listing, args, {
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

const registries = new WeakMap<AnalyticsClient, BackgroundListings>();
/** One registry per upstream client: every server instance built on it (one per connection) shares its walks. */
export function backgroundListings(client: AnalyticsClient): BackgroundListings {
  let r = registries.get(client);
  if (!r) {
    registries.set(client, (r = new BackgroundListings(client)));
    // With a disk cache, page counts outlive the process: tomorrow's first walk already knows its length.
    if (client.cacheDir)
      r.estimates = new FilePageEstimates(join(client.cacheDir, `page-estimates-${client.caller.credential}.json`));
  }
  return r;
}

/** Stops the client's background walks, if it has any; for AnalyticsClient.close. */
export function closeBackgroundListings(client: AnalyticsClient): void {
  registries.get(client)?.close();
}
