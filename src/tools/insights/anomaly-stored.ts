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

/** Days of digests read at a time: 58 days of 50,000 people's digests at once would be some 60 MB of arrays. */
const READ_DAYS = 7;

/**
 * Per identity number, the digests' values by day over `days`, all at one scale (raised as digests with more
 * decimals come): one flat array of every identity's days, indexed by the store's numbers, grown as they come.
 */
export class DenseBuilder {
  private readonly width: number;
  private all = new Float64Array(0);
  seen = new Uint8Array(0);
  readonly org: Float64Array;

  constructor(
    private readonly days: DayRange,
    public scale = 0,
  ) {
    this.width = days.end - days.start + 1;
    this.org = new Float64Array(this.width);
  }

  add(digests: readonly Digest[]): void {
    const top = maxId(digests);
    if (top >= this.seen.length) this.grow(Math.max(top + 1, Math.ceil(this.seen.length * 1.5)));
    const finer = Math.max(this.scale, ...digests.map((d) => d.scale));
    if (finer > this.scale) this.rescale(finer);
    const { width } = this;
    for (const d of digests) {
      const k = 10 ** (this.scale - d.scale);
      const at = d.days.start - this.days.start;
      for (let i = 0; i < d.ids.length; i++) {
        const id = d.ids[i]!;
        const v = valueOf(d.v[i]!) * k;
        this.all[id * width + at] = v;
        this.seen[id] = 1;
        this.org[at]! += v;
      }
      this.org[at]! += valueOf(d.rest) * k;
      if (!Number.isSafeInteger(this.org[at]!)) throw new Unsafe();
    }
  }

  private grow(ids: number): void {
    const all = new Float64Array(ids * this.width);
    all.set(this.all);
    const seen = new Uint8Array(ids);
    seen.set(this.seen);
    [this.all, this.seen] = [all, seen];
  }

  private rescale(scale: number): void {
    const k = 10 ** (scale - this.scale);
    for (const values of [this.all, this.org])
      for (let i = 0; i < values.length; i++) {
        values[i]! *= k;
        if (!Number.isSafeInteger(values[i]!)) throw new Unsafe();
      }
    this.scale = scale;
  }

  /** Each identity's series by its key, and the organization's by day. */
  finish(keyOf: ReadonlyArray<string | undefined>) {
    const { width } = this;
    const out = new Map<string, DenseDaily>();
    for (let id = 0; id < this.seen.length; id++) {
      if (!this.seen[id]) continue;
      const a = this.all.subarray(id * width, (id + 1) * width);
      let peak = 0;
      for (let i = 0; i < width; i++) if (a[i]! > peak) peak = a[i]!;
      if (!Number.isSafeInteger(peak)) throw new Unsafe();
      out.set(keyOf[id]!, new DenseDaily(this.days.start, a, peak));
    }
    const org = new Map<number, bigint>();
    this.org.forEach((v, i) => org.set(this.days.start + i, BigInt(v)));
    return { byKey: out, org };
  }
}

/**
 * Daily credits and billed USD per identity from the history store's digests (one small row a day), or null
 * when the store lacks a day of them (the listings then answer).
 */
export async function storedIdentitySeries(ctx: Pick<ToolContext, 'client'>, days: DayRange) {
  const credits = new DenseBuilder(days);
  const billed = new DenseBuilder(days);
  const freshness: Freshness[] = [];
  try {
    for (let start = days.start; start <= days.end; start += READ_DAYS) {
      const part = { start, end: Math.min(days.end, start + READ_DAYS - 1) };
      for (const [name, into] of [
        ['credits', credits],
        ['billed', billed],
      ] as const) {
        const digests = await ctx.client.digests(name, part, true);
        if (!digests) return null;
        into.add(digests);
        freshness.push(...digests.map((d) => d.freshness));
      }
    }
    const ids: number[] = [];
    for (let id = 0; id < Math.max(credits.seen.length, billed.seen.length); id++)
      if (credits.seen[id] || billed.seen[id]) ids.push(id);
    const refs = await refsOf(ctx, ids);
    const keyOf: Array<string | undefined> = [];
    const identities = new Map<string, IdentityRef>();
    for (const [id, ref] of refs) {
      const key = identityKey(ref);
      keyOf[id] = key;
      identities.set(key, ref);
    }
    const c = credits.finish(keyOf);
    const b = billed.finish(keyOf);
    return { identities, credits: c.byKey, orgCredits: c.org, billed: b.byKey, scale: billed.scale, freshness };
  } catch (error) {
    if (error instanceof Unsafe) return null;
    throw error;
  }
}
