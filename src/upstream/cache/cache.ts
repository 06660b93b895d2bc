import { LRUCache } from 'lru-cache';
import { abortError } from '../transport/deadline.js';
import { UpstreamUnavailableError } from '../errors.js';
import type { CachePolicy, Freshness } from '../../domain/freshness.js';
import { encodeAnswer, type AnswerStore, type StoredAnswer, type StoreHit } from './stored-answer.js';
import { instruments } from '../../telemetry/instruments.js';
import { inSpan } from '../../telemetry/spans.js';

interface Entry {
  value: unknown;
  fetchedAt: number;
  nextRefreshAt: number | undefined;
  /** The call that loaded it: every other caller is served from cache. 0: read from a store. */
  loadedBy: number;
}

interface LoadContext {
  callId: number;
  load: (signal: AbortSignal) => Promise<{ value: unknown; bytes: number }>;
  policy: () => CachePolicy;
  revive: Revive | undefined;
}

/** A look-up of one layer (memory, redis, disk), counted. */
function counted(layer: string, hit: boolean): void {
  (hit ? instruments().cacheHits : instruments().cacheMisses).add(1, { layer });
}

/** Checks a value read back from a store (e.g. against its endpoint's schema): returns it, or throws. */
export type Revive = (stored: unknown) => unknown;

export interface CachedAnswer<T> {
  value: T;
  freshness: Freshness;
}

/**
 * Answers by key, bounded in bytes, with the TTL each answer's policy gives. Identical concurrent
 * requests share one load; a load is aborted only when every caller waiting on it has gone.
 * Behind the memory sit the stores, in order (Redis, then disk): a miss asks them before the upstream,
 * a hit in one is copied to the others, and every load is written through to all of them.
 */
export class ResponseCache {
  private readonly lru: LRUCache<string, Entry, LoadContext>;
  private readonly waiters = new Map<string, number>();
  private readonly loading = new Set<string>();
  private nextCallId = 1;
  private readonly sizes = new Map<string, number>();
  private readonly writes = new Set<Promise<void>>();

  constructor(
    maxBytes: number,
    private readonly now: () => number,
    private readonly stores: readonly AnswerStore[] = [],
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
          const stored = await this.fromStores(key, context.revive);
          if (stored) {
            this.sizes.set(key, Math.max(1, stored.bytes));
            options.ttl = Math.max(1, stored.expiresAt - this.now());
            const { value, fetchedAt, nextRefreshAt } = stored;
            return { value, fetchedAt, nextRefreshAt, loadedBy: 0 };
          }
          const { value, bytes } = await context.load(signal);
          const policy = context.policy();
          const fetchedAt = this.now();
          const ttl = Math.max(1, policy.ttlMs);
          this.sizes.set(key, Math.max(1, bytes));
          options.ttl = ttl;
          this.toStores(this.stores, {
            key,
            value,
            fetchedAt,
            nextRefreshAt: policy.nextRefreshAt,
            expiresAt: fetchedAt + ttl,
          });
          return { value, fetchedAt, nextRefreshAt: policy.nextRefreshAt, loadedBy: context.callId };
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
    revive?: Revive,
  ): Promise<CachedAnswer<T>> {
    try {
      return await inSpan('cache look-up', {}, () => this.attempt<T>(key, { policy, load, revive }, signal));
    } catch (error) {
      // A load still under way can be evicted to make room for a large answer; its callers start over once.
      if (!(error instanceof Error && error.message === 'evicted') || signal?.aborted) throw error;
      try {
        return await this.attempt<T>(key, { policy, load, revive }, signal);
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
    loader: Omit<LoadContext, 'callId'>,
    signal?: AbortSignal,
  ): Promise<CachedAnswer<T>> {
    if (signal?.aborted) throw abortError(signal);
    const callId = this.nextCallId++;
    this.waiters.set(key, (this.waiters.get(key) ?? 0) + 1);
    let onAbort: (() => void) | undefined;
    try {
      const status: LRUCache.Status<string, Entry, LoadContext> = {};
      const fetched = this.lru.fetch(key, { context: { callId, ...loader }, status });
      // A load under way for another call counts as a hit: this call sends nothing of its own.
      counted('memory', status.fetch === 'hit' || status.fetch === 'inflight');
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

  /** The first store with a fresh answer that `revive` accepts; the others are given a copy. */
  private async fromStores(key: string, revive: Revive | undefined): Promise<StoreHit | undefined> {
    const now = this.now();
    for (const store of this.stores) {
      const hit = await store.get(key, now);
      counted(store.name, hit !== undefined);
      if (!hit) continue;
      if (revive) {
        try {
          hit.value = revive(hit.value);
        } catch {
          await store.delete(key);
          continue;
        }
      }
      this.toStores(
        this.stores.filter((s) => s !== store),
        hit,
      );
      return hit;
    }
    return undefined;
  }

  /** Writes in the background; flush() waits for them. */
  private toStores(stores: readonly AnswerStore[], answer: StoredAnswer): void {
    if (stores.length === 0) return;
    const { key, value, fetchedAt, nextRefreshAt, expiresAt } = answer;
    const plain = { key, value, fetchedAt, nextRefreshAt, expiresAt };
    let encoded: string;
    try {
      encoded = encodeAnswer(plain);
    } catch {
      return;
    }
    const now = this.now();
    const write = Promise.all(stores.map((s) => s.set(plain, encoded, now).catch(() => {}))).then(() => {});
    this.writes.add(write);
    void write.finally(() => this.writes.delete(write));
  }

  /** Waits until every answer loaded so far is in the stores. */
  async flush(): Promise<void> {
    while (this.writes.size > 0) await Promise.all([...this.writes]);
  }

  /** Clears the memory only; the stores keep their entries. */
  clear(): void {
    this.lru.clear();
  }

  async close(): Promise<void> {
    await this.flush();
    await Promise.all(this.stores.map((s) => s.close()));
  }

  get size(): { entries: number; bytes: number } {
    return { entries: this.lru.size, bytes: this.lru.calculatedSize };
  }
}
