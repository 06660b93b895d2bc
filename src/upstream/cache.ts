import { LRUCache } from 'lru-cache';
import { abortError } from './deadline.js';
import { UpstreamUnavailableError } from './errors.js';
import type { CachePolicy, Freshness } from './freshness.js';

interface Entry {
  value: unknown;
  fetchedAt: number;
  nextRefreshAt: number | undefined;
  /** The call that loaded it: every other caller is served from cache. */
  loadedBy: number;
}

interface LoadContext {
  callId: number;
  load: (signal: AbortSignal) => Promise<{ value: unknown; bytes: number }>;
  policy: () => CachePolicy;
}

export interface CachedAnswer<T> {
  value: T;
  freshness: Freshness;
}

/**
 * Answers by key, bounded in bytes, with the TTL each answer's policy gives. Identical concurrent
 * requests share one load; a load is aborted only when every caller waiting on it has gone.
 */
export class ResponseCache {
  private readonly lru: LRUCache<string, Entry, LoadContext>;
  private readonly waiters = new Map<string, number>();
  private readonly loading = new Set<string>();
  private nextCallId = 1;
  private readonly sizes = new Map<string, number>();

  constructor(
    maxBytes: number,
    private readonly now: () => number,
  ) {
    this.lru = new LRUCache<string, Entry, LoadContext>({
      maxSize: maxBytes,
      sizeCalculation: (_entry, key) => this.sizes.get(key) ?? 1,
      dispose: (_entry, key) => this.sizes.delete(key),
      // lru-cache tracks TTLs with this clock, so the injected (or faked) clock governs expiry.
      perf: { now: () => this.now() },
      ttlResolution: 0,
      ttlAutopurge: false,
      allowStale: false,
      ignoreFetchAbort: false,
      fetchMethod: async (key, _stale, { signal, options, context }) => {
        this.loading.add(key);
        try {
          const { value, bytes } = await context.load(signal);
          const policy = context.policy();
          this.sizes.set(key, Math.max(1, bytes));
          options.ttl = Math.max(1, policy.ttlMs);
          return { value, fetchedAt: this.now(), nextRefreshAt: policy.nextRefreshAt, loadedBy: context.callId };
        } finally {
          this.loading.delete(key);
        }
      },
    });
  }

  async get<T>(
    key: string,
    policy: () => CachePolicy,
    load: LoadContext['load'],
    signal?: AbortSignal,
  ): Promise<CachedAnswer<T>> {
    try {
      return await this.attempt<T>(key, policy, load, signal);
    } catch (error) {
      // A load still under way can be evicted to make room for a large answer; its callers start over once.
      if (!(error instanceof Error && error.message === 'evicted') || signal?.aborted) throw error;
      try {
        return await this.attempt<T>(key, policy, load, signal);
      } catch (again) {
        if (again instanceof Error && again.message === 'evicted')
          throw new UpstreamUnavailableError(
            'The response cache is too small for this many concurrent requests; try again, or raise its size.',
          );
        throw again;
      }
    }
  }

  private async attempt<T>(
    key: string,
    policy: () => CachePolicy,
    load: LoadContext['load'],
    signal?: AbortSignal,
  ): Promise<CachedAnswer<T>> {
    if (signal?.aborted) throw abortError(signal);
    const callId = this.nextCallId++;
    this.waiters.set(key, (this.waiters.get(key) ?? 0) + 1);
    let onAbort: (() => void) | undefined;
    try {
      const fetched = this.lru.fetch(key, { context: { callId, load, policy } });
      // A caller that gave up leaves this promise behind; its rejection is the remaining callers' to see.
      fetched.catch(() => {});
      const aborted = new Promise<never>((_, reject) => {
        onAbort = () => reject(abortError(signal));
        signal?.addEventListener('abort', onAbort, { once: true });
      });
      const entry = await Promise.race([fetched, aborted]);
      if (!entry) throw new Error(`cache load for ${key} produced nothing`);
      return {
        value: entry.value as T,
        freshness: {
          fetched_at: new Date(entry.fetchedAt).toISOString(),
          from_cache: entry.loadedBy !== callId,
          next_refresh_at: entry.nextRefreshAt === undefined ? null : new Date(entry.nextRefreshAt).toISOString(),
        },
      };
    } finally {
      if (onAbort) signal?.removeEventListener('abort', onAbort);
      const left = (this.waiters.get(key) ?? 1) - 1;
      if (left > 0) this.waiters.set(key, left);
      else {
        this.waiters.delete(key);
        // Nobody waits for this load any more: deleting the key aborts its fetch, and so the HTTP request.
        if (signal?.aborted && this.loading.has(key)) this.lru.delete(key);
      }
    }
  }

  clear(): void {
    this.lru.clear();
  }

  get size(): { entries: number; bytes: number } {
    return { entries: this.lru.size, bytes: this.lru.calculatedSize };
  }
}
