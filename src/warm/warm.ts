import type { Runtime } from '../runtime/runtime.js';
import { duration } from '../format/text.js';
import { connectRedis, type SharedRedis } from '../upstream/limits/redis-connection.js';
import { WarmLock } from './warm-lock.js';
import type { WarmItem } from './warm-list.js';

/** What a warm-up needs of the runtime: its client (and so its caches and limiters), config and log. */
export type WarmTarget = Pick<Runtime, 'client' | 'config' | 'log' | 'secrets'>;

export interface ItemResult {
  name: string;
  pages: number;
  seconds: number;
  /** Every page was already in a cache (memory, Redis or disk): nothing was sent upstream. */
  fromCache: boolean;
  /** Why this item could not be fetched. */
  error?: string;
}

export type WarmOutcome = { ran: true; results: ItemResult[] } | { ran: false; reason: string };

export interface WarmOptions {
  signal?: AbortSignal;
  /** Called as each item ends, for progress lines. */
  onItem?: (result: ItemResult) => void;
  /** The Redis to lock with; by default the client's, or one connected from config.redisUrl for this run. */
  redis?: SharedRedis;
}

export const SKIPPED = 'another server is warming; skipped';
/** How long to wait for a Redis connection made for this run before warming without the lock. */
const REDIS_READY_MS = 2_000;

/** Connection errors are waited through: a Redis that is still connecting gets its moment. */
async function readyWithin(redis: SharedRedis, ms: number): Promise<boolean> {
  if (redis.ready()) return true;
  await new Promise<void>((resolve) => {
    const done = () => {
      clearTimeout(timer);
      redis.client.off('ready', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    redis.client.once('ready', done);
  });
  return redis.ready();
}

/**
 * Fetches the items into the cache at background priority, so that a person's question always goes
 * first. Items of different rate-limit groups are fetched side by side, those of one group in turn; the
 * limiters pace every request, so the warm-up itself never meets a 429. An item that fails does not stop
 * the others. With Redis, one process per credential warms at a time: the others skip.
 */
export async function warmUp(target: WarmTarget, items: WarmItem[], options: WarmOptions = {}): Promise<WarmOutcome> {
  const { config, log } = target;
  const own = !options.redis && !target.client.redis && config.redisUrl ? connectRedis(config.redisUrl) : undefined;
  const redis = options.redis ?? target.client.redis ?? own;
  try {
    let lock: WarmLock | null | undefined;
    if (redis) {
      try {
        if (!(await readyWithin(redis, REDIS_READY_MS))) throw new Error('not connected');
        lock = await WarmLock.acquire(redis, target.client.sender.credential);
      } catch (error) {
        // The limiters fall back to a conservative share of the rate without Redis, so warming stays safe.
        log.warn('Redis is not reachable: warming without the lock', {
          error: error instanceof Error ? error.message : String(error),
        });
      }
      if (lock === null) return { ran: false, reason: SKIPPED };
    }
    try {
      const signal = AbortSignal.any([options.signal, lock?.lost].filter((s): s is AbortSignal => s !== undefined));
      return { ran: true, results: await fetchAll(target, items, signal, options.onItem) };
    } finally {
      await lock?.release();
    }
  } finally {
    await own?.close();
  }
}

async function fetchAll(
  target: WarmTarget,
  items: WarmItem[],
  signal: AbortSignal,
  onItem: ((result: ItemResult) => void) | undefined,
): Promise<ItemResult[]> {
  const groups = new Map<string, WarmItem[]>();
  for (const item of items) groups.set(item.group, [...(groups.get(item.group) ?? []), item]);
  const results = new Map<WarmItem, ItemResult>();
  await Promise.all(
    [...groups.values()].map(async (group) => {
      for (const item of group) {
        const result = await fetchOne(target, item, signal);
        results.set(item, result);
        onItem?.(result);
      }
    }),
  );
  return items.map((item) => results.get(item)!);
}

async function fetchOne(target: WarmTarget, item: WarmItem, signal: AbortSignal): Promise<ItemResult> {
  const started = Date.now();
  const seconds = () => (Date.now() - started) / 1000;
  if (signal.aborted)
    return { name: item.name, pages: 0, seconds: 0, fromCache: false, error: reasonOf(signal.reason) };
  try {
    const answer = await item.fetch(target.client, {
      signal,
      priority: 'background',
      // What the walk took becomes the "page 23 of ~101" of the tools' progress for the same question.
      estimates: target.client.background.estimates,
    });
    return { name: item.name, pages: answer.pages, seconds: seconds(), fromCache: answer.freshness.from_cache };
  } catch (error) {
    target.log.debug('warm-up item failed', { item: item.name, error: reasonOf(error) });
    return { name: item.name, pages: 0, seconds: seconds(), fromCache: false, error: reasonOf(error) };
  }
}

const reasonOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** One progress line: name, pages, how long it took, and whether anything was fetched. */
export function itemLine(r: ItemResult): string {
  if (r.error) return `${r.name}: failed after ${duration(r.seconds * 1000)}: ${r.error}`;
  const pages = `${r.pages} page${r.pages === 1 ? '' : 's'}`;
  return `${r.name}: ${pages} in ${duration(r.seconds * 1000)}, ${r.fromCache ? 'from cache' : 'fetched'}`;
}
