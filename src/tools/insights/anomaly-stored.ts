import type { DayRange } from '../../domain/dates.js';
import type { Freshness } from '../../domain/freshness.js';
import type { Digest } from '../../upstream/history-port.js';
import { identityKey, type IdentityRef } from '../../upstream/listing/merge.js';
import type { ToolContext } from '../types.js';
import { Unsafe, refsOf, valueOf } from './digest-sums.js';
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
function dense(digests: readonly Digest[], days: DayRange, scale: number, keyOf: Map<number, string>) {
  const width = days.end - days.start + 1;
  const arrays = new Map<number, Float64Array>();
  const org = new Float64Array(width);
  for (const d of digests) {
    const k = 10 ** (scale - d.scale);
    const at = d.days.start - days.start;
    for (let i = 0; i < d.ids.length; i++) {
      const v = valueOf(d.v[i]!) * k;
      let a = arrays.get(d.ids[i]!);
      if (!a) arrays.set(d.ids[i]!, (a = new Float64Array(width)));
      a[at] = v;
      org[at]! += v;
    }
    org[at]! += valueOf(d.rest) * k;
    if (!Number.isSafeInteger(org[at]!)) throw new Unsafe();
  }
  const out = new Map<string, DenseDaily>();
  for (const [id, a] of arrays) {
    let peak = 0;
    for (const v of a) if (v > peak) peak = v;
    if (!Number.isSafeInteger(peak)) throw new Unsafe();
    out.set(keyOf.get(id)!, new DenseDaily(days.start, a, peak));
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
    const refs = await refsOf(ctx, new Set([...credits, ...billed].flatMap((d) => d.ids)));
    const keyOf = new Map<number, string>();
    const identities = new Map<string, IdentityRef>();
    for (const [id, ref] of refs) {
      const key = identityKey(ref);
      keyOf.set(id, key);
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
