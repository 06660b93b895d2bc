import type { DayRange } from '../domain/dates.js';
import type { Freshness } from '../domain/freshness.js';
import type { Digest } from '../upstream/history-port.js';
import { identityKey, type IdentityRef } from '../upstream/listing/merge.js';
import { Unsafe, maxId, refsOf, valueOf, type StoreReader } from './digest-sums.js';
import { COST_FLOOR_USD, CREDIT_FLOOR, leastSpike, type Daily } from './anomaly-rules.js';

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
 * Per identity number, the digests' values by day over `days`, all at one scale, read in two passes. The first
 * (`peaks`) keeps each identity's largest value and the organization's days, raising the scale as digests with
 * more decimals come. Only identities whose peak reaches the least spike can have one (spikes passes the others
 * over), so the second (`add`) keeps the days of those only: one flat array, a row per kept identity.
 */
export class DenseBuilder {
  private readonly width: number;
  private peak: Float64Array;
  readonly org: Float64Array;
  scale = 0;
  /** Per identity number, its row in `all`; −1: not kept. */
  private row = new Int32Array(0);
  private all = new Float64Array(0);

  /** `ids`: the numbers expected, 0 to ids − 1 (more grow the peaks, a copy at a time). */
  constructor(
    private readonly days: DayRange,
    ids = 0,
  ) {
    this.width = days.end - days.start + 1;
    this.org = new Float64Array(this.width);
    this.peak = new Float64Array(ids);
  }

  peaks(digests: readonly Digest[]): void {
    const top = maxId(digests);
    if (top >= this.peak.length) {
      const peak = new Float64Array(Math.max(top + 1, Math.ceil(this.peak.length * 1.5)));
      peak.set(this.peak);
      this.peak = peak;
    }
    const finer = Math.max(this.scale, ...digests.map((d) => d.scale));
    if (finer > this.scale) {
      const k = 10 ** (finer - this.scale);
      for (const values of [this.peak, this.org])
        for (let i = 0; i < values.length; i++) {
          values[i]! *= k;
          if (!Number.isSafeInteger(values[i]!)) throw new Unsafe();
        }
      this.scale = finer;
    }
    for (const d of digests) {
      const k = 10 ** (this.scale - d.scale);
      const at = d.days.start - this.days.start;
      for (let i = 0; i < d.ids.length; i++) {
        const v = valueOf(d.v[i]!) * k;
        if (!Number.isSafeInteger(v)) throw new Unsafe();
        if (v > this.peak[d.ids[i]!]!) this.peak[d.ids[i]!] = v;
        this.org[at]! += v;
      }
      this.org[at]! += valueOf(d.rest) * k;
      if (!Number.isSafeInteger(this.org[at]!)) throw new Unsafe();
    }
  }

  /** After the first pass: keeps the identities whose peak reaches `least` (units at the final scale). */
  keep(least: bigint): number[] {
    const kept: number[] = [];
    this.row = new Int32Array(this.peak.length).fill(-1);
    for (let id = 0; id < this.peak.length; id++)
      if (this.peak[id]! > 0 && BigInt(this.peak[id]!) >= least) this.row[id] = kept.push(id) - 1;
    this.all = new Float64Array(kept.length * this.width);
    return kept;
  }

  /** The second pass: the days of the identities kept. */
  add(digests: readonly Digest[]): void {
    for (const d of digests) {
      const k = 10 ** (this.scale - d.scale);
      const at = d.days.start - this.days.start;
      for (let i = 0; i < d.ids.length; i++) {
        const row = this.row[d.ids[i]!] ?? -1;
        if (row >= 0) this.all[row * this.width + at] = valueOf(d.v[i]!) * k;
      }
    }
  }

  /** Each kept identity's series by its key, in the order of their numbers, and the organization's by day. */
  finish(keyOf: ReadonlyArray<string | undefined>) {
    const { width } = this;
    const out = new Map<string, DenseDaily>();
    for (let id = 0; id < this.row.length; id++) {
      const row = this.row[id]!;
      if (row < 0) continue;
      out.set(
        keyOf[id]!,
        new DenseDaily(this.days.start, this.all.subarray(row * width, (row + 1) * width), this.peak[id]!),
      );
    }
    const org = new Map<number, bigint>();
    this.org.forEach((v, i) => org.set(this.days.start + i, BigInt(v)));
    return { byKey: out, org };
  }
}

/**
 * Daily credits and billed USD per identity from the history store's digests (one small row a day), or null
 * when the store lacks a day of them (the listings then answer). Only identities that can have a spike are
 * kept (see DenseBuilder); the organization's days sum them all.
 */
export async function storedIdentitySeries(ctx: Pick<StoreReader, 'digests'>, days: DayRange) {
  // Sized once for the identities numbered so far: growing as numbers come would copy at a time.
  const numbered = (await ctx.digests.lastId()) + 1;
  const metrics = [
    { name: 'credits', into: new DenseBuilder(days, numbered), floor: CREDIT_FLOOR },
    { name: 'billed', into: new DenseBuilder(days, numbered), floor: COST_FLOOR_USD },
  ] as const;
  const freshness: Freshness[] = [];
  const read = async (each: (m: (typeof metrics)[number], digests: Digest[]) => void) => {
    for (let start = days.start; start <= days.end; start += READ_DAYS) {
      const part = { start, end: Math.min(days.end, start + READ_DAYS - 1) };
      for (const m of metrics) {
        const digests = await ctx.digests.digests(m.name, part, true);
        if (!digests) return false;
        each(m, digests);
      }
    }
    return true;
  };
  try {
    if (!(await read((m, digests) => (m.into.peaks(digests), freshness.push(...digests.map((d) => d.freshness))))))
      return null;
    const kept = new Set(metrics.flatMap((m) => m.into.keep(leastSpike(m.floor, m.into.scale))));
    if (!(await read((m, digests) => m.into.add(digests)))) return null;
    const refs = await refsOf(
      ctx,
      [...kept].sort((a, b) => a - b),
    );
    const keyOf: Array<string | undefined> = [];
    const identities = new Map<string, IdentityRef>();
    for (const [id, ref] of refs) {
      const key = identityKey(ref);
      keyOf[id] = key;
      identities.set(key, ref);
    }
    const [c, b] = metrics.map((m) => m.into.finish(keyOf));
    return {
      identities,
      credits: c!.byKey,
      orgCredits: c!.org,
      billed: b!.byKey,
      scale: metrics[1].into.scale,
      freshness,
    };
  } catch (error) {
    if (error instanceof Unsafe) return null;
    throw error;
  }
}
