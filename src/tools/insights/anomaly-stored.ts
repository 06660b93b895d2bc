import type { DayRange } from '../../domain/dates.js';
import type { Freshness } from '../../domain/freshness.js';
import type { Digest } from '../../upstream/history-port.js';
import { identityKey, type IdentityRef } from '../../upstream/listing/merge.js';
import type { ToolContext } from '../types.js';
import { Unsafe, maxId, refsOf, valueOf } from './digest-sums.js';
import type { Daily } from './anomaly-rules.js';

/**
 * One identity's values over a window of days, in a flat array: at 50,000 people and 88 days, millions of
 * values that a map per identity would make slow to build. Values are exact integers (checked safe).
 */
export class DenseDaily implements Daily {
  constructor(
    private readonly start: number,
    private readonly values: Float64Array,
    /** The largest value: a series that never reaches a threshold is passed over. */
    readonly peak: number,
  ) {}

  get(day: number): bigint | undefined {
    const v = this.values[day - this.start];
    return v ? BigInt(v) : undefined;
  }
}

/** Per identity key, the digests' values by day over `days`, all at `scale` decimals (raised where fewer). */
function dense(digests: readonly Digest[], days: DayRange, scale: number, keyOf: ReadonlyArray<string | undefined>) {
  const width = days.end - days.start + 1;
  // One array of every identity's days, indexed by the store's numbers; each identity's series is a view of it.
  const top = maxId(digests);
  const all = new Float64Array((top + 1) * width);
  const seen = new Uint8Array(top + 1);
  const org = new Float64Array(width);
  for (const d of digests) {
    const k = 10 ** (scale - d.scale);
    const at = d.days.start - days.start;
    for (let i = 0; i < d.ids.length; i++) {
      const id = d.ids[i]!;
      const v = valueOf(d.v[i]!) * k;
      all[id * width + at] = v;
      seen[id] = 1;
      org[at]! += v;
    }
    org[at]! += valueOf(d.rest) * k;
    if (!Number.isSafeInteger(org[at]!)) throw new Unsafe();
  }
  const out = new Map<string, DenseDaily>();
  for (let id = 0; id <= top; id++) {
    if (!seen[id]) continue;
    const a = all.subarray(id * width, (id + 1) * width);
    let peak = 0;
    for (let i = 0; i < width; i++) if (a[i]! > peak) peak = a[i]!;
    if (!Number.isSafeInteger(peak)) throw new Unsafe();
    out.set(keyOf[id]!, new DenseDaily(days.start, a, peak));
  }
  const orgDaily = new Map<number, bigint>();
  org.forEach((v, i) => orgDaily.set(days.start + i, BigInt(v)));
  return { byKey: out, org: orgDaily };
}

/**
 * Daily credits and billed USD per identity from the history store's digests (one small row a day), or null
 * when the store lacks a day of them (the listings then answer).
 */
export async function storedIdentitySeries(ctx: Pick<ToolContext, 'client'>, days: DayRange) {
  const [credits, billed] = await Promise.all([
    ctx.client.digests('credits', days, true),
    ctx.client.digests('billed', days, true),
  ]);
  if (!credits || !billed) return null;
  try {
    const both = [...credits, ...billed];
    // Which numbers appear, marked in an array: millions of ids at 50,000 people, a Set of them is slow.
    const marked = new Uint8Array(maxId(both) + 1);
    for (const d of both) for (const id of d.ids) marked[id] = 1;
    const ids: number[] = [];
    marked.forEach((m, id) => m && ids.push(id));
    const refs = await refsOf(ctx, ids);
    const keyOf: Array<string | undefined> = [];
    const identities = new Map<string, IdentityRef>();
    for (const [id, ref] of refs) {
      const key = identityKey(ref);
      keyOf[id] = key;
      identities.set(key, ref);
    }
    const scale = Math.max(0, ...billed.map((d) => d.scale));
    const c = dense(credits, days, 0, keyOf);
    const b = dense(billed, days, scale, keyOf);
    const freshness: Freshness[] = [...credits, ...billed].map((d) => d.freshness);
    return { identities, credits: c.byKey, orgCredits: c.org, billed: b.byKey, scale, freshness };
  } catch (error) {
    if (error instanceof Unsafe) return null;
    throw error;
  }
}
