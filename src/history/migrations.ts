import type { Kysely } from 'kysely';
import type { HistoryTables } from './store-tables.js';
import { HistoryUnusable } from './history-errors.js';

type Db = Kysely<HistoryTables>;

/** Each migration once, in order; the store's version is the number of migrations applied. */
const MIGRATIONS: Array<(db: Db) => Promise<void>> = [
  async (db) => {
    await db.schema
      .createTable('history_blocks')
      .ifNotExists()
      .addColumn('dataset', 'text', (c) => c.notNull())
      .addColumn('start_day', 'integer', (c) => c.notNull())
      .addColumn('end_day', 'integer', (c) => c.notNull())
      .addColumn('grain', 'text', (c) => c.notNull())
      .addColumn('rows', 'integer', (c) => c.notNull())
      .addColumn('fetched_at', 'text', (c) => c.notNull())
      .addColumn('expires_at', 'bigint')
      .addPrimaryKeyConstraint('history_blocks_pk', ['dataset', 'start_day', 'end_day'])
      .execute();
    await db.schema
      .createTable('history_rows')
      .ifNotExists()
      .addColumn('dataset', 'text', (c) => c.notNull())
      .addColumn('start_day', 'integer', (c) => c.notNull())
      .addColumn('end_day', 'integer', (c) => c.notNull())
      .addColumn('seq', 'integer', (c) => c.notNull())
      .addColumn('identity', 'text')
      .addColumn('body', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('history_rows_pk', ['dataset', 'start_day', 'end_day', 'seq'])
      .execute();
    await db.schema
      .createIndex('history_rows_identity')
      .ifNotExists()
      .on('history_rows')
      .columns(['dataset', 'identity', 'start_day'])
      .execute();
    await db.schema
      .createTable('history_lock')
      .ifNotExists()
      .addColumn('name', 'text', (c) => c.primaryKey())
      .addColumn('holder', 'text', (c) => c.notNull())
      .addColumn('host', 'text', (c) => c.notNull())
      .addColumn('pid', 'integer', (c) => c.notNull())
      .addColumn('beat_at', 'bigint', (c) => c.notNull())
      .execute();
  },
];

export const SCHEMA_VERSION = MIGRATIONS.length;

/** Brings the store to this version's schema; a store written by a newer version is left alone. */
export async function migrate(db: Db): Promise<void> {
  await db.schema
    .createTable('history_meta')
    .ifNotExists()
    .addColumn('key', 'text', (c) => c.primaryKey())
    .addColumn('value', 'text', (c) => c.notNull())
    .execute();
  await db.transaction().execute(async (tx) => {
    const row = await tx
      .selectFrom('history_meta')
      .select('value')
      .where('key', '=', 'schema_version')
      .executeTakeFirst();
    const version = row ? Number(row.value) : 0;
    if (!Number.isInteger(version) || version > SCHEMA_VERSION)
      throw new HistoryUnusable(
        `the history store has schema version ${row?.value}, newer than this version of org-analytics-mcp knows (${SCHEMA_VERSION}); upgrade org-analytics-mcp, or point --history at another store`,
      );
    for (let v = version; v < SCHEMA_VERSION; v++) await MIGRATIONS[v]!(tx);
    if (version === SCHEMA_VERSION) return;
    await tx
      .insertInto('history_meta')
      .values({ key: 'schema_version', value: String(SCHEMA_VERSION) })
      .onConflict((oc) => oc.column('key').doUpdateSet({ value: String(SCHEMA_VERSION) }))
      .execute();
  });
}
