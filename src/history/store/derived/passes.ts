/**
 * Sums per identity over many records (a day of 50,000 people, a run of days) are summed in passes, each over one
 * share of the identities: a pass holds the sums of a share, so a sync's heap stays small whatever the size of
 * the organization. Every identity falls in one share, so the sums of the shares are the sums of the whole.
 */

/**
 * Records read per pass, about: a share holds the sums of at most as many identities. Tests lower it, to sum a
 * small organization in several passes.
 */
export const PASS = { records: 20_000 };

export const passesFor = (records: number) => Math.max(1, Math.ceil(records / PASS.records));

/** FNV-1a: identities spread evenly over the shares, the same on every read. */
function hash(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/** Whether an identity (null: a row of the whole organization) is in share `pass` of `passes`. */
export function shareOf(pass: number, passes: number): (identity: string | null) => boolean {
  return (identity) => hash(identity ?? '') % passes === pass;
}
