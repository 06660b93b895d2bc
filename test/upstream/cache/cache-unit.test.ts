import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ResponseCache } from '../../../src/upstream/cache/cache.js';
import { DiskStore } from '../../../src/upstream/cache/disk-store.js';

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

describe('ResponseCache with a store behind it', () => {
  const withDir = async (run: (dir: string) => Promise<void>) => {
    const dir = mkdtempSync(join(tmpdir(), 'oam-cache-unit-'));
    try {
      await run(dir);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };

  it('serves a stored answer as from cache to every caller, with its fetch time', () =>
    withDir(async (dir) => {
      const first = new ResponseCache(10_000, () => 1_000, [new DiskStore(dir, 1_000_000)]);
      await first.get('k', policy, async () => ({ value: { n: 1 }, bytes: 7 }));
      await first.close();
      const second = new ResponseCache(10_000, () => 5_000, [new DiskStore(dir, 1_000_000)]);
      const answer = await second.get('k', policy, () => Promise.reject(new Error('not from the upstream')));
      expect(answer).toEqual({
        value: { n: 1 },
        freshness: { fetched_at: new Date(1_000).toISOString(), from_cache: true, next_refresh_at: null },
      });
      await second.close();
    }));

  it('loads again, and replaces the entry, when the stored value is refused by revive', () =>
    withDir(async (dir) => {
      const first = new ResponseCache(10_000, () => 1_000, [new DiskStore(dir, 1_000_000)]);
      await first.get('k', policy, async () => ({ value: { old: true }, bytes: 12 }));
      await first.close();
      const refuseOld = (v: unknown) => {
        if ((v as { old?: boolean }).old) throw new Error('old shape');
        return v;
      };
      const second = new ResponseCache(10_000, () => 2_000, [new DiskStore(dir, 1_000_000)]);
      const answer = await second.get('k', policy, async () => ({ value: { n: 2 }, bytes: 7 }), undefined, refuseOld);
      expect(answer.value).toEqual({ n: 2 });
      expect(answer.freshness.from_cache).toBe(false);
      await second.close();
      const third = new ResponseCache(10_000, () => 3_000, [new DiskStore(dir, 1_000_000)]);
      expect((await third.get('k', policy, () => Promise.reject(new Error('no')), undefined, refuseOld)).value).toEqual(
        {
          n: 2,
        },
      );
      await third.close();
    }));
});
