import { describe, expect, it } from 'vitest';
import { DenseBuilder } from '../../../src/tools/insights/anomaly-stored.js';
import type { Digest } from '../../../src/upstream/history-port.js';

const freshness = { fetched_at: '2026-11-01T03:00:00Z', from_cache: false, next_refresh_at: null } as never;
const digest = (day: number, scale: number, ids: number[], v: Array<number | string>, rest = 0): Digest => ({
  days: { start: day, end: day },
  ids,
  v,
  scale,
  rest,
  freshness,
});

const series = (built: ReturnType<DenseBuilder['finish']>, key: string, days: number[]) =>
  days.map((d) => built.byKey.get(key)?.get(d));

describe('the dense series of digests read a few days at a time', () => {
  const days = { start: 100, end: 103 };
  const keyOf = ['u:a', 'u:b', 'u:c', 'u:d', 'u:e', 'u:f', 'u:g'];
  // Billed USD in units of each day's decimals: 2, then 4, then 3; identities numbered up to 6 only later.
  const reads = [
    [digest(100, 2, [1, 2], [150, 7], 1), digest(101, 2, [2], [25])],
    [digest(102, 4, [1, 6], [12_345, 10_000], 50)],
    [digest(103, 3, [3], ['9007'])],
  ];

  it('raises every value to the finest scale seen, grows with the numbers, and sums the organization exactly', () => {
    const b = new DenseBuilder(days);
    for (const read of reads) b.add(read);
    expect(b.scale).toBe(4);
    const built = b.finish(keyOf);
    expect(series(built, 'u:b', [100, 101, 102, 103])).toEqual([15_000n, undefined, 12_345n, undefined]);
    expect(series(built, 'u:c', [100, 101, 102, 103])).toEqual([700n, 2_500n, undefined, undefined]);
    expect(series(built, 'u:g', [102])).toEqual([10_000n]);
    expect(series(built, 'u:d', [103])).toEqual([90_070n]);
    expect([...built.org]).toEqual([
      [100, 15_000n + 700n + 100n],
      [101, 2_500n],
      [102, 12_345n + 10_000n + 50n],
      [103, 90_070n],
    ]);
    expect(built.byKey.get('u:g')!.peak).toBe(10_000);
  });

  it('gives the same series whatever the order the days are read in', () => {
    const forward = new DenseBuilder(days);
    const backward = new DenseBuilder(days);
    for (const read of reads) forward.add(read);
    for (const read of [...reads].reverse()) backward.add(read);
    const [f, b] = [forward.finish(keyOf), backward.finish(keyOf)];
    for (const key of keyOf) expect(series(b, key, [100, 101, 102, 103])).toEqual(series(f, key, [100, 101, 102, 103]));
    expect([...b.org]).toEqual([...f.org]);
  });
});
