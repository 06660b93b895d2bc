import type { DayRange } from '../domain/dates.js';
import type { Digest, DigestPort } from '../upstream/history-port.js';
import type { IdentityRef } from '../upstream/listing/merge.js';
import type { ListReader } from '../upstream/listing/list-all.js';

/**
 * Reading the history store's digests: per block, identities by number with exact integer values. Sums over
 * blocks stay numbers while they are safe integers; a value beyond 2^53 (never seen at these sizes) makes the
 * caller take the listing path instead.
 */

/** What reading the store's digests beside the listings takes: a tool's context is one, and so is the sync's. */
export interface StoreReader extends ListReader {
  digests: DigestPort;
}

export class Unsafe extends Error {}

export const valueOf = (v: number | string): number => {
  const n = typeof v === 'number' ? v : Number(v);
  if (!Number.isSafeInteger(n)) throw new Unsafe();
  return n;
};

/** The largest identity number of the digests (they list their numbers ascending; numbers are dense from 1). */
export const maxId = (digests: readonly Digest[]) => {
  let max = 0;
  for (const d of digests) if (d.ids.length && d.ids[d.ids.length - 1]! > max) max = d.ids[d.ids.length - 1]!;
  return max;
};

/** Each identity's sum over the digests, added up in an array indexed by number: millions of values at 50,000 people. */
export function sumById(digests: readonly Digest[]): Map<number, number> {
  const top = maxId(digests);
  const sums = new Float64Array(top + 1);
  const seen = new Uint8Array(top + 1);
  for (const d of digests)
    for (let i = 0; i < d.ids.length; i++) {
      const id = d.ids[i]!;
      sums[id]! += valueOf(d.v[i]!);
      seen[id] = 1;
    }
  const out = new Map<number, number>();
  for (let id = 0; id <= top; id++) {
    if (!seen[id]) continue;
    if (!Number.isSafeInteger(sums[id]!)) throw new Unsafe();
    out.set(id, sums[id]!);
  }
  return out;
}

/** The identity refs of numbered people, as the upstream names them. */
export async function refsOf(ctx: Pick<StoreReader, 'digests'>, ids: Iterable<number>) {
  const names = await ctx.digests.names(ids);
  const out = new Map<number, IdentityRef>();
  for (const [id, name] of names)
    out.set(id, name.startsWith('u:') ? { user_email: name.slice(2) } : { service_account_name: name.slice(2) });
  return out;
}

/** A sum of digest values in units of `scale` decimals, kept as a double while every step is a safe integer. */
function addScaled(sums: Float64Array, id: number, value: number | string, k: number) {
  const term = valueOf(value) * k;
  const next = sums[id]! + term;
  if (!Number.isSafeInteger(term) || !Number.isSafeInteger(next)) throw new Unsafe();
  sums[id] = next;
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

/** Billed USD and credits of one identity (or of no person), as exact decimals. */
export interface CostSum {
  billed: string;
  credits: string;
}

/**
 * Each identity's billed USD and credits over the days, from the store's billed digests (months first, then
 * days), and what no person's rows sum to (`rest`, undefined when zero); null when a day is not stored, a digest
 * lacks the credits (stored before they were kept), or a sum is beyond 2^53 units: the caller reads rows then.
 * Identities are `u:<email lowercased>` or `s:<name>`, as the listings key them.
 */
export async function costByIdentity(
  ctx: Pick<StoreReader, 'digests'>,
  days: DayRange,
): Promise<{ ids: Map<string, CostSum>; rest: CostSum | undefined } | null> {
  const digests = await ctx.digests.digests('billed', days);
  if (!digests || digests.some((d) => !d.credits)) return null;
  try {
    const top = maxId(digests);
    const billed = new Float64Array(top + 1);
    const credits = new Float64Array(top + 1);
    const seen = new Uint8Array(top + 1);
    const scale = Math.max(0, ...digests.map((d) => d.scale));
    const creditScale = Math.max(0, ...digests.map((d) => d.credits!.scale));
    const rest = { billed: 0n, credits: 0n };
    for (const d of digests) {
      const kb = 10 ** (scale - d.scale);
      const kc = 10 ** (creditScale - d.credits!.scale);
      const cv = d.credits!.v;
      for (let i = 0; i < d.ids.length; i++) {
        const id = d.ids[i]!;
        addScaled(billed, id, d.v[i]!, kb);
        addScaled(credits, id, cv[i]!, kc);
        seen[id] = 1;
      }
      rest.billed += BigInt(d.rest) * BigInt(kb);
      rest.credits += BigInt(d.credits!.rest) * BigInt(kc);
    }
    const numbers: number[] = [];
    for (let id = 0; id <= top; id++) if (seen[id]) numbers.push(id);
    const names = await ctx.digests.names(numbers);
    const ids = new Map<string, CostSum>();
    for (const id of numbers) {
      const name = names.get(id);
      if (name === undefined) return null;
      const key = name.startsWith('u:') ? `u:${name.slice(2).toLowerCase()}` : name;
      ids.set(key, { billed: decimalOf(billed[id]!, scale), credits: decimalOf(credits[id]!, creditScale) });
    }
    const noPerson = rest.billed !== 0n || rest.credits !== 0n;
    return {
      ids,
      rest: noPerson
        ? { billed: decimalOf(rest.billed, scale), credits: decimalOf(rest.credits, creditScale) }
        : undefined,
    };
  } catch (error) {
    if (error instanceof Unsafe) return null;
    throw error;
  }
}
