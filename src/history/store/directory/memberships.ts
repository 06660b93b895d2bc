import type { Kysely, Transaction } from 'kysely';
import type { DirectorySnapshot } from '../../../directory/directory-row.js';
import type { HistoryTables } from '../store-tables.js';
import { signatureOf, storedOf, type StoredMembership } from './membership-rows.js';

type Db = Kysely<HistoryTables>;
const CHUNK = 500;

export interface RecordedChange {
  opened: number;
  closed: number;
}

/**
 * Keeps a directory's version in the store, dated (issue 34's rule): a row without dates holds for every stored
 * day until a change is recorded, and from then on each change is kept with its day. The first directory ever
 * recorded holds since always; later, a membership that appears opens on `today`, one that is gone ends the day
 * before (or is dropped, if it opened today), and a change of primary or attributes does both. An identity whose
 * rows come with their own dates (an HR export with effective dates) is taken as the source says it: its stored
 * rows are replaced by those. Recording the same directory twice changes nothing. One transaction.
 */
export async function recordDirectory(db: Db, snapshot: DirectorySnapshot, today: number): Promise<RecordedChange> {
  const at = snapshot.source.loadedAt;
  return db.transaction().execute(async (tx) => {
    const first = (await tx.selectFrom('directory_memberships').select('id').limit(1).execute()).length === 0;
    const open = (await tx
      .selectFrom('directory_memberships')
      .selectAll()
      .where('to_day', 'is', null)
      .execute()) as StoredMembership[];
    const byIdentity = new Map<string, DirectorySnapshot['rows']>();
    for (const r of snapshot.rows) byIdentity.set(r.identity, [...(byIdentity.get(r.identity) ?? []), r]);
    const datedIds = [...byIdentity].filter(([, rows]) => rows.some((r) => r.validFrom || r.validTo)).map(([id]) => id);
    const dated = new Set(datedIds);
    const inserts: Array<ReturnType<typeof storedOf>> = [];
    const close: number[] = [];
    const drop: number[] = [];
    const wanted = new Set<string>();
    for (const [identity, rows] of byIdentity) {
      if (dated.has(identity)) {
        for (const r of rows) inserts.push(storedOf(r, at, true));
        continue;
      }
      for (const r of rows) {
        const s = storedOf(r, at, false);
        const key = `${identity}\u0000${signatureOf(s)}`;
        if (wanted.has(key)) continue;
        wanted.add(key);
        inserts.push({ ...s, from_day: first ? null : today });
      }
    }
    const kept = new Set<string>();
    for (const o of open) {
      const key = `${o.identity}\u0000${signatureOf(o)}`;
      if (dated.has(o.identity)) continue; // replaced below
      if (!o.dated && wanted.has(key) && !kept.has(key)) kept.add(key);
      else if (o.from_day !== null && Number(o.from_day) >= today) drop.push(o.id);
      else close.push(o.id);
    }
    const opened = inserts.filter((s) => s.dated || !kept.has(`${s.identity}\u0000${signatureOf(s)}`));
    await removeDated(tx, datedIds);
    for (let i = 0; i < close.length; i += CHUNK)
      await tx
        .updateTable('directory_memberships')
        .set({ to_day: today - 1 })
        .where('id', 'in', close.slice(i, i + CHUNK))
        .execute();
    for (let i = 0; i < drop.length; i += CHUNK)
      await tx
        .deleteFrom('directory_memberships')
        .where('id', 'in', drop.slice(i, i + CHUNK))
        .execute();
    for (let i = 0; i < opened.length; i += CHUNK)
      await tx
        .insertInto('directory_memberships')
        .values(opened.slice(i, i + CHUNK))
        .execute();
    return { opened: opened.length, closed: close.length + drop.length };
  });
}

/** An identity the source dates itself: what the store held of it goes, the source's rows stand in. */
async function removeDated(tx: Transaction<HistoryTables>, identities: readonly string[]): Promise<void> {
  for (let i = 0; i < identities.length; i += CHUNK)
    await tx
      .deleteFrom('directory_memberships')
      .where('identity', 'in', identities.slice(i, i + CHUNK))
      .execute();
}
