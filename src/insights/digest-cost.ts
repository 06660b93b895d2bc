import type { DayRange } from '../domain/dates.js';
import type { Digest } from '../upstream/history-port.js';
import { Unsafe, maxId, valueOf, type StoreReader } from './digest-sums.js';

/** Billed USD and credits of one identity (or of no person), as exact decimals. */
export interface CostSum {
  billed: string;
  credits: string;
}

/** Days whose cost is summed apart, and the bucket (a month, or the whole range) they add up in. */
export interface CostSegment {
  days: DayRange;
  bucket: number;
}

/** What one segment's sums hold: its identities' cost, and what no person's rows sum to (undefined when zero). */
export interface SegmentSums {
  ids: Map<string, CostSum>;
  rest: CostSum | undefined;
}

/** Units at `scale` decimals as a decimal string, as the upstream writes amounts (tidyDecimal). */
export function decimalOf(units: number | bigint, scale: number): string {
  const n = BigInt(units);
  const digits = (n < 0n ? -n : n).toString().padStart(scale + 1, '0');
  const whole = digits.slice(0, digits.length - scale);
  const fraction = digits
    .slice(digits.length - scale)
    .replace(/0+$/, '')
    .padEnd(2, '0');
  return `${n < 0n ? '-' : ''}${whole}.${fraction}`;
}

/** A digest value at `k` times its units added to a sum, checked: every step a safe integer, or Unsafe. */
function plus(sum: number, value: number | string, k: number): number {
  const term = valueOf(value) * k;
  const next = sum + term;
  if (!Number.isSafeInteger(term) || !Number.isSafeInteger(next)) throw new Unsafe();
  return next;
}

/** `u:<email lowercased>` or `s:<name>`, as the listings key identities, from the store's names. */
const keyOf = (name: string) => (name.startsWith('u:') ? `u:${name.slice(2).toLowerCase()}` : name);

/**
 * Each identity's billed USD and credits from the store's billed digests (months first, then days), per segment.
 * Identities `apart` (whose teams change with the day) are summed per segment; every other one, and no person's
 * rows, per bucket, in the bucket's first segment: its teams are the same whichever day. Null when a day is not
 * stored, a digest lacks the credits (stored before they were kept), or a sum is beyond 2^53 units: the caller
 * reads rows then.
 */
export async function costByIdentity(
  ctx: Pick<StoreReader, 'digests'>,
  segments: readonly CostSegment[],
  apart: (identity: string) => boolean,
): Promise<SegmentSums[] | null> {
  const lists: Digest[][] = [];
  for (const s of segments) {
    const got = await ctx.digests.digests('billed', s.days);
    if (!got || got.some((d) => !d.credits)) return null;
    lists.push(got);
  }
  const all = lists.flat();
  const size = maxId(all) + 1;
  const seen = new Uint8Array(size);
  for (const d of all) for (const id of d.ids) seen[id] = 1;
  const numbers = [...seen.keys()].filter((id) => seen[id]);
  const names = await ctx.digests.names(numbers);
  const keys: string[] = [];
  const isApart = new Uint8Array(size);
  for (const id of numbers) {
    const name = names.get(id);
    if (name === undefined) return null;
    keys[id] = keyOf(name);
    if (apart(keys[id])) isApart[id] = 1;
  }
  const scale = Math.max(0, ...all.map((d) => d.scale));
  const creditScale = Math.max(0, ...all.map((d) => d.credits!.scale));
  const buckets = Math.max(...segments.map((s) => s.bucket)) + 1;
  try {
    // Per bucket and identity, at `bucket * size + id`; the rows apart, per segment and identity.
    const billed = new Float64Array(buckets * size);
    const credits = new Float64Array(buckets * size);
    const held = new Uint8Array(buckets * size);
    const rest = Array.from({ length: buckets }, () => ({ billed: 0n, credits: 0n }));
    const out = segments.map(() => new Map<number, { b: number; c: number }>());
    for (const [i, s] of segments.entries())
      for (const d of lists[i]!) {
        const kb = 10 ** (scale - d.scale);
        const kc = 10 ** (creditScale - d.credits!.scale);
        const base = s.bucket * size;
        const own = out[i]!;
        const cv = d.credits!.v;
        for (let j = 0; j < d.ids.length; j++) {
          const id = d.ids[j]!;
          if (isApart[id]) {
            const at = own.get(id) ?? own.set(id, { b: 0, c: 0 }).get(id)!;
            at.b = plus(at.b, d.v[j]!, kb);
            at.c = plus(at.c, cv[j]!, kc);
          } else {
            billed[base + id] = plus(billed[base + id]!, d.v[j]!, kb);
            credits[base + id] = plus(credits[base + id]!, cv[j]!, kc);
            held[base + id] = 1;
          }
        }
        rest[s.bucket]!.billed += BigInt(d.rest) * BigInt(kb);
        rest[s.bucket]!.credits += BigInt(d.credits!.rest) * BigInt(kc);
      }
    const sum = (b: number | bigint, c: number | bigint) => ({
      billed: decimalOf(b, scale),
      credits: decimalOf(c, creditScale),
    });
    const result: SegmentSums[] = out.map((own) => ({
      ids: new Map([...own].map(([id, v]) => [keys[id]!, sum(v.b, v.c)])),
      rest: undefined,
    }));
    const firsts = new Map<number, number>();
    segments.forEach((s, i) => firsts.has(s.bucket) || firsts.set(s.bucket, i));
    for (const [bucket, i] of firsts) {
      const into = result[i]!;
      const base = bucket * size;
      for (const id of numbers)
        if (held[base + id]) into.ids.set(keys[id]!, sum(billed[base + id]!, credits[base + id]!));
      const r = rest[bucket]!;
      if (r.billed !== 0n || r.credits !== 0n) into.rest = sum(r.billed, r.credits);
    }
    return result;
  } catch (error) {
    if (error instanceof Unsafe) return null;
    throw error;
  }
}
