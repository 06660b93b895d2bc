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

/** The identity numbers the digests list, each once, ascending. */
export function numbersOf(digests: readonly Digest[]): number[] {
  const seen = new Uint8Array(maxId(digests) + 1);
  for (const d of digests) for (const id of d.ids) seen[id] = 1;
  const numbers: number[] = [];
  for (let id = 0; id < seen.length; id++) if (seen[id]) numbers.push(id);
  return numbers;
}

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
