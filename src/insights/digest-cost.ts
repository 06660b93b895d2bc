import type { DayRange } from '../domain/dates.js';
import type { Digest } from '../upstream/history-port.js';
import { Unsafe, maxId, numbersOf, valueOf, type StoreReader } from './digest-sums.js';

/** Days whose cost is summed apart, and the bucket (a month, or the whole range) they add up in. */
export interface CostSegment {
  days: DayRange;
  bucket: number;
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

/** Per-segment sums in units: billed at `scale` decimals, credits at `creditScale`; no person's rest as BigInt. */
export interface SegmentUnits {
  scale: number;
  creditScale: number;
  parts: Array<{ ids: Map<string, { b: number; c: number }>; rest: { b: bigint; c: bigint } | undefined }>;
}

/**
 * Each identity's billed USD and credits from the store's billed digests (months first, then days), per segment,
 * in integer units (callers add them up further and write decimals once). Identities `apart` (whose teams change
 * with the day) are summed per segment; every other one, and no person's rows, per bucket, in the bucket's first
 * segment: its teams are the same whichever day. Null when a day is not stored, a digest lacks the credits (stored
 * before they were kept), or a sum is beyond 2^53 units: the caller reads rows then.
 */
export async function costUnits(
  ctx: Pick<StoreReader, 'digests'>,
  segments: readonly CostSegment[],
  apart: (identity: string) => boolean,
  /** Identity keys by number, kept across calls (a chargeback's months): filled in as they are read. */
  keys: string[] = [],
): Promise<SegmentUnits | null> {
  const lists: Digest[][] = [];
  for (const s of segments) {
    const got = await ctx.digests.digests('billed', s.days);
    if (!got || got.some((d) => !d.credits)) return null;
    lists.push(got);
  }
  const all = lists.flat();
  const size = maxId(all) + 1;
  const numbers = numbersOf(all);
  const missing = numbers.filter((id) => keys[id] === undefined);
  const names = missing.length ? await ctx.digests.names(missing) : new Map<number, string>();
  for (const id of missing) {
    const name = names.get(id);
    if (name === undefined) return null;
    keys[id] = keyOf(name);
  }
  const isApart = new Uint8Array(size);
  for (const id of numbers) if (apart(keys[id]!)) isApart[id] = 1;
  const scale = Math.max(0, ...all.map((d) => d.scale));
  const creditScale = Math.max(0, ...all.map((d) => d.credits!.scale));
  const buckets = Math.max(...segments.map((s) => s.bucket)) + 1;
  try {
    // Per bucket and identity, at `bucket * size + id`; the rows apart, per segment and identity.
    const billed = new Float64Array(buckets * size);
    const credits = new Float64Array(buckets * size);
    const held = new Uint8Array(buckets * size);
    const rest = Array.from({ length: buckets }, () => ({ b: 0n, c: 0n }));
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
        rest[s.bucket]!.b += BigInt(d.rest) * BigInt(kb);
        rest[s.bucket]!.c += BigInt(d.credits!.rest) * BigInt(kc);
      }
    const parts: SegmentUnits['parts'] = out.map((own) => ({
      ids: new Map([...own].map(([id, v]) => [keys[id]!, v])),
      rest: undefined,
    }));
    const firsts = new Map<number, number>();
    segments.forEach((s, i) => firsts.has(s.bucket) || firsts.set(s.bucket, i));
    for (const [bucket, i] of firsts) {
      const into = parts[i]!;
      const base = bucket * size;
      for (const id of numbers)
        if (held[base + id]) into.ids.set(keys[id]!, { b: billed[base + id]!, c: credits[base + id]! });
      const r = rest[bucket]!;
      if (r.b !== 0n || r.c !== 0n) into.rest = r;
    }
    return { scale, creditScale, parts };
  } catch (error) {
    if (error instanceof Unsafe) return null;
    throw error;
  }
}
