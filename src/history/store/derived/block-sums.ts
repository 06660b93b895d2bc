import type { Kysely } from 'kysely';
import type { HistoryTables } from '../store-tables.js';
import { stagingId } from '../block-ids.js';
import { insertPositioned, readRecords } from '../store-rows.js';
import { perIdentity, rollupSums, rollupsOf, type Rollup } from './cost-rollups.js';
import { DIGESTED } from './digests.js';
import { digestBody, digestShare, type DigestShare } from './digest-body.js';
import { digestSums, type DigestSums } from './identity-sums.js';
import type { PeopleIndex } from './people-index.js';
import { passesFor, shareOf } from './passes.js';

type Db = Kysely<HistoryTables>;

/**
 * The numbers of a digest's identities, the new ones numbered in a transaction of their own (one sorted pass,
 * so that writers side by side on PostgreSQL never wait on each other in a cycle), kept once it commits.
 */
export async function numbered(db: Db, people: PeopleIndex, sums: DigestSums): Promise<ReadonlyMap<string, number>> {
  let settle = () => {};
  const ids = await db.transaction().execute(async (tx) => {
    const got = await people.number(tx, [sums]);
    settle = got.settle;
    return got.ids;
  });
  settle();
  return ids;
}

/**
 * A staged block's digest (its body) and its rollups (staged, with their row counts), summed from its rows a
 * part at a time: the rollups of the whole organization in one read, those per identity (and the digest) in
 * passes over shares of the identities, so a block of 50,000 people is never summed in memory at once.
 */
export async function blockSums(
  db: Db,
  people: PeopleIndex,
  b: { dataset: string; start: number; end: number; rows: number },
) {
  const staged = { ...b, dataset: stagingId(b.dataset) };
  const rollups = new Map<string, number>();
  const stageRollups = async (sums: ReturnType<typeof rollupSums>) => {
    for (const r of sums.rows()) {
      await insertPositioned(db, { ...b, dataset: stagingId(r.id) }, r.rows);
      rollups.set(r.id, (rollups.get(r.id) ?? 0) + r.rows.length);
    }
  };
  const passes = passesFor(b.rows);
  const whole = (r: Rollup) => !perIdentity(r);
  // In passes, the rollups of the whole organization are summed in a read of their own.
  if (passes > 1 && rollupsOf(b.dataset, whole).length) {
    const sums = rollupSums(b.dataset, whole);
    await readRecords(db, staged, sums.add);
    await stageRollups(sums);
  }
  const which = passes > 1 ? perIdentity : undefined;
  const digested = DIGESTED.includes(b.dataset);
  const shares: DigestShare[] = [];
  for (let pass = 0; pass < passes && (digested || rollupsOf(b.dataset, which).length); pass++) {
    const sums = rollupSums(b.dataset, which);
    const digest = digestSums(b.dataset);
    const keep = passes > 1 ? shareOf(pass, passes) : undefined;
    await readRecords(db, staged, (rows) => (sums.add(rows), digest?.add(rows)), { keep });
    await stageRollups(sums);
    if (digest) shares.push(digestShare(digest, await numbered(db, people, digest)));
  }
  return { digest: digested ? digestBody(shares) : undefined, rollups };
}
