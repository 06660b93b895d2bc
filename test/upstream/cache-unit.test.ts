import { describe, expect, it } from 'vitest';
import { ResponseCache } from '../../src/upstream/cache.js';

const policy = () => ({ ttlMs: 60_000, nextRefreshAt: undefined });

describe('ResponseCache', () => {
  it('lets a load that was evicted while under way start over, instead of failing its callers', async () => {
    const cache = new ResponseCache(1000, Date.now);
    let release!: (v: { value: unknown; bytes: number }) => void;
    let loads = 0;
    const slow = cache.get('slow', policy, () => {
      loads++;
      return loads === 1 ? new Promise((r) => (release = r)) : Promise.resolve({ value: 'second', bytes: 10 });
    });
    await cache.get('big-1', policy, async () => ({ value: 'x', bytes: 600 }));
    await cache.get('big-2', policy, async () => ({ value: 'y', bytes: 600 }));
    release?.({ value: 'first', bytes: 10 });
    const answer = await slow;
    // The first load was evicted (and aborted) to make room; the caller got the second one, not an error.
    expect(loads).toBe(2);
    expect(answer.value).toBe('second');
  });

  it('shares one load between identical concurrent callers and says who was served from cache', async () => {
    const cache = new ResponseCache(10_000, Date.now);
    let loads = 0;
    const load = async () => {
      loads++;
      await new Promise((r) => setTimeout(r, 20));
      return { value: 42, bytes: 2 };
    };
    const answers = await Promise.all([
      cache.get('k', policy, load),
      cache.get('k', policy, load),
      cache.get('k', policy, load),
    ]);
    expect(loads).toBe(1);
    expect(answers.map((a) => a.freshness.from_cache).sort()).toEqual([false, true, true]);
  });
});
