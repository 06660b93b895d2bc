import { describe, expect, it } from 'vitest';
import { DenseBuilder } from '../../src/insights/anomaly-stored.js';
import type { Digest } from '../../src/upstream/history-port.js';

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

/** Both passes over the reads, in the order given, keeping identities whose peak reaches `least`. */
function build(days: { start: number; end: number }, reads: Digest[][], least: bigint, ids = 0) {
  const b = new DenseBuilder(days, ids);
  for (const read of reads) b.peaks(read);
  const kept = b.keep(least);
  for (const read of reads) b.add(read);
  return { b, kept };
}

describe('the dense series of digests, read a few days at a time in two passes', () => {
  const days = { start: 100, end: 103 };
  const keyOf = ['u:a', 'u:b', 'u:c', 'u:d', 'u:e', 'u:f', 'u:g'];
  // Billed USD in units of each day's decimals: 2, then 4, then 3; identities numbered up to 6 only later.
  const reads = [
    [digest(100, 2, [1, 2], [150, 7], 1), digest(101, 2, [2], [25])],
    [digest(102, 4, [1, 6], [12_345, 10_000], 50)],
    [digest(103, 3, [3], ['9007'])],
  ];

  it('raises every value to the finest scale seen, grows with the numbers, and sums the organization exactly', () => {
    const { b, kept } = build(days, reads, 1n);
    expect(b.scale).toBe(4);
    expect(kept).toEqual([1, 2, 3, 6]);
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
    expect(built.byKey.get('u:b')!.peak).toBe(15_000);
  });

  it('keeps only the identities whose peak reaches the least spike, and still sums everyone into the organization', () => {
    const { b, kept } = build(days, reads, 12_345n, 7);
    expect(kept).toEqual([1, 3]);
    const built = b.finish(keyOf);
    expect([...built.byKey.keys()]).toEqual(['u:b', 'u:d']);
    expect(series(built, 'u:b', [100, 101, 102, 103])).toEqual([15_000n, undefined, 12_345n, undefined]);
    expect(built.org.get(100)).toBe(15_000n + 700n + 100n);
  });

  it('gives the same series whatever the order the days are read in', () => {
    const f = build(days, reads, 1n).b.finish(keyOf);
    const b = build(days, [...reads].reverse(), 1n).b.finish(keyOf);
    for (const key of keyOf) expect(series(b, key, [100, 101, 102, 103])).toEqual(series(f, key, [100, 101, 102, 103]));
    expect([...b.org]).toEqual([...f.org]);
  });
});
