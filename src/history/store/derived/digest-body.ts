import type { DigestSums } from './identity-sums.js';

const out = (n: bigint): number | string => (Number.isSafeInteger(Number(n)) ? Number(n) : n.toString());

/** A digest's sums of one share of the identities, by number: compact, kept while the other shares are summed. */
export interface DigestShare {
  ids: number[];
  units: bigint[];
  scale: number;
  rest: bigint;
  also?: { units: bigint[]; scale: number; rest: bigint };
}

export function digestShare(sums: DigestSums, ids: ReadonlyMap<string, number>): DigestShare {
  const also = sums.also();
  const share: DigestShare = {
    ids: [],
    units: [],
    scale: sums.scale(),
    rest: sums.rest(),
    ...(also ? { also: { units: [], scale: also.scale, rest: also.rest } } : {}),
  };
  for (const [key, s] of sums.entries()) {
    share.ids.push(ids.get(key)!);
    share.units.push(s.units[0]!);
    share.also?.units.push(s.units[1]!);
  }
  return share;
}

/** One column of the shares' sums at their finest scale: the values by position in `order`, and the rest. */
function column(
  shares: ReadonlyArray<{ units: bigint[]; scale: number; rest: bigint }>,
  order: Array<[number, number]>,
) {
  const scale = Math.max(0, ...shares.map((s) => s.scale));
  const k = shares.map((s) => 10n ** BigInt(scale - s.scale));
  const rest = shares.reduce((n, s, i) => n + s.rest * k[i]!, 0n);
  return { v: order.map(([s, i]) => out(shares[s]!.units[i]! * k[s]!)), scale, rest: out(rest) };
}

/**
 * The digest row's body from the sums of its shares: identities by number, ascending, with their values (and the
 * `also` column's, as `credits`, when every share has it).
 */
export function digestBody(shares: readonly DigestShare[]): string {
  const order: Array<[number, number]> = shares.flatMap((s, si) => s.ids.map((_, i): [number, number] => [si, i]));
  order.sort((a, b) => shares[a[0]]!.ids[a[1]]! - shares[b[0]]!.ids[b[1]]!);
  const main = column(shares, order);
  const also = shares.every((s) => s.also) ? shares.map((s) => s.also!) : undefined;
  return JSON.stringify({
    ids: order.map(([s, i]) => shares[s]!.ids[i]!),
    ...main,
    ...(also && shares.length ? { credits: column(also, order) } : {}),
  });
}
