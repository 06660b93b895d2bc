import type { Kysely } from 'kysely';
import type { HistoryTables } from '../store-tables.js';
import type { DigestSums } from './identity-sums.js';

type Db = Kysely<HistoryTables>;

/** Rows per query: within both engines' bound-parameter limits. */
const CHUNK = 2000;

/**
 * The store's numbering of identities, kept in memory as it is read or written. A transaction numbers all the
 * identities it writes first, in one sorted pass, so that writers side by side (PostgreSQL) never wait on each
 * other in a cycle; numbers are kept in memory once it commits (`settle`): a rolled-back one may be given again.
 */
export class PeopleIndex {
  private readonly ids = new Map<string, number>();
  private readonly names = new Map<number, string>();

  /** The numbers of the identities of the digests, numbering the new ones, inside `tx`; `settle` keeps them. */
  async number(db: Db, digests: ReadonlyArray<DigestSums | undefined>) {
    const wanted = new Map<string, { name: string }>();
    for (const d of digests) if (d) for (const [key, s] of d.entries()) wanted.set(key, s);
    const found = new Map<string, number>();
    const missing = [...wanted.keys()].filter((k) => {
      const id = this.ids.get(k);
      if (id !== undefined) found.set(k, id);
      return id === undefined;
    });
    const select = async (keys: string[]) => {
      for (let i = 0; i < keys.length; i += CHUNK) {
        const rows = await db
          .selectFrom('history_people')
          .select(['id', 'identity'])
          .where('identity', 'in', keys.slice(i, i + CHUNK))
          .execute();
        for (const r of rows) found.set(r.identity, Number(r.id));
      }
    };
    await select(missing);
    const fresh = missing.filter((k) => !found.has(k)).sort();
    for (let i = 0; i < fresh.length; i += CHUNK) {
      const values = fresh.slice(i, i + CHUNK).map((identity) => ({ identity, name: wanted.get(identity)!.name }));
      await db
        .insertInto('history_people')
        .values(values)
        .onConflict((oc) => oc.column('identity').doNothing())
        .execute();
    }
    await select(fresh);
    return { ids: found, settle: () => found.forEach((id, key) => this.ids.set(key, id)) };
  }

  /** The largest number given so far (0: none). */
  async lastId(db: Db): Promise<number> {
    const row = await db
      .selectFrom('history_people')
      .select((eb) => eb.fn.max<number>('id').as('last'))
      .executeTakeFirst();
    return Number(row?.last ?? 0);
  }

  /** The names (emails or service account names) and identity keys of numbered people. */
  async namesOf(db: Db, ids: Iterable<number>): Promise<Map<number, string>> {
    const wanted = [...new Set(ids)];
    const missing = wanted.filter((id) => !this.names.has(id));
    for (let i = 0; i < missing.length; i += CHUNK) {
      const rows = await db
        .selectFrom('history_people')
        .select(['id', 'identity', 'name'])
        .where('id', 'in', missing.slice(i, i + CHUNK))
        .execute();
      for (const r of rows) {
        this.names.set(Number(r.id), `${r.identity.slice(0, 2)}${r.name}`);
        this.ids.set(r.identity, Number(r.id));
      }
    }
    const out = new Map<number, string>();
    for (const id of wanted) {
      const name = this.names.get(id);
      if (name !== undefined) out.set(id, name);
    }
    return out;
  }
}
