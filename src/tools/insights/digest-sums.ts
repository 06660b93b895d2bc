import type { Digest } from '../../upstream/history-port.js';
import type { IdentityRef } from '../../upstream/listing/merge.js';
import type { ToolContext } from '../types.js';

/**
 * Reading the history store's digests: per block, identities by number with exact integer values. Sums over
 * blocks stay numbers while they are safe integers; a value beyond 2^53 (never seen at these sizes) makes the
 * caller take the listing path instead.
 */

export class Unsafe extends Error {}

export const valueOf = (v: number | string): number => {
  const n = typeof v === 'number' ? v : Number(v);
  if (!Number.isSafeInteger(n)) throw new Unsafe();
  return n;
};

/** Each identity's sum over the digests. */
export function sumById(digests: readonly Digest[]): Map<number, number> {
  const out = new Map<number, number>();
  for (const d of digests)
    for (let i = 0; i < d.ids.length; i++) {
      const id = d.ids[i]!;
      const sum = (out.get(id) ?? 0) + valueOf(d.v[i]!);
      if (!Number.isSafeInteger(sum)) throw new Unsafe();
      out.set(id, sum);
    }
  return out;
}

/** The identity refs of numbered people, as the upstream names them. */
export async function refsOf(ctx: Pick<ToolContext, 'client'>, ids: Iterable<number>) {
  const names = await ctx.client.digestNames(ids);
  const out = new Map<number, IdentityRef>();
  for (const [id, name] of names)
    out.set(id, name.startsWith('u:') ? { user_email: name.slice(2) } : { service_account_name: name.slice(2) });
  return out;
}
