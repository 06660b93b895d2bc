import { sql, type Kysely } from 'kysely';
import type { HistoryTables } from './store-tables.js';
import { HistoryUnusable } from './history-errors.js';
import { digestId } from './block-ids.js';
import { clear } from './store-rows.js';

type Db = Kysely<HistoryTables>;

const COST_DIGESTS = ['cost-by-day', 'cost-total-months'].map(digestId);
type Engine = 'sqlite' | 'postgres';

/** Each migration once, in order; the store's version is the number of migrations applied. */
const MIGRATIONS: Array<(db: Db, engine: Engine) => Promise<void>> = [
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
  // The numbering of identities the digests list people by (see digests.ts).
  async (db, engine) => {
    await db.schema
      .createTable('history_people')
      .ifNotExists()
      .addColumn('id', engine === 'postgres' ? 'serial' : 'integer', (c) => c.primaryKey())
      .addColumn('identity', 'text', (c) => c.notNull().unique())
      .addColumn('name', 'text', (c) => c.notNull())
      .execute();
  },
  // The organization's directory, kept day by day (see directory/memberships.ts).
  async (db, engine) => {
    await db.schema
      .createTable('directory_memberships')
      .ifNotExists()
      .addColumn('id', engine === 'postgres' ? 'serial' : 'integer', (c) => c.primaryKey())
      .addColumn('identity', 'text', (c) => c.notNull())
      .addColumn('team', 'text', (c) => c.notNull())
      .addColumn('is_primary', 'integer', (c) => c.notNull())
      .addColumn('attributes', 'text', (c) => c.notNull())
      .addColumn('from_day', 'integer')
      .addColumn('to_day', 'integer')
      .addColumn('dated', 'integer', (c) => c.notNull())
      .addColumn('recorded_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex('directory_memberships_identity')
      .ifNotExists()
      .on('directory_memberships')
      .columns(['identity', 'to_day'])
      .execute();
  },
  // Issue 35's alerts outbox (see outbox/).
  async (db) => {
    await db.schema
      .createTable('alerts_outbox')
      .ifNotExists()
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('type', 'text', (c) => c.notNull())
      .addColumn('dedup_key', 'text', (c) => c.notNull())
      .addColumn('destination', 'text', (c) => c.notNull())
      .addColumn('batch', 'text', (c) => c.notNull())
      .addColumn('payload', 'text', (c) => c.notNull())
      .addColumn('state', 'text', (c) => c.notNull())
      .addColumn('attempts', 'integer', (c) => c.notNull())
      .addColumn('next_attempt_at', 'bigint', (c) => c.notNull())
      .addColumn('last_error', 'text')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('delivered_at', 'bigint')
      .addColumn('claimed_by', 'text')
      .addColumn('claim_until', 'bigint')
      .addUniqueConstraint('alerts_outbox_dedup', ['destination', 'dedup_key'])
      .execute();
    await db.schema
      .createIndex('alerts_outbox_due')
      .ifNotExists()
      .on('alerts_outbox')
      .columns(['state', 'next_attempt_at'])
      .execute();
    await db.schema
      .createIndex('alerts_outbox_created')
      .ifNotExists()
      .on('alerts_outbox')
      .columns(['created_at'])
      .execute();
  },
  // Cost digests written before they kept credits beside billed USD: dropped, so that the next sync writes them
  // again from their rows (fillDigests), and cost by team and chargebacks sum them instead of reading rows.
  async (db) => {
    const old = await db
      .selectFrom('history_rows')
      .select(['dataset', 'start_day', 'end_day'])
      .where('dataset', 'in', COST_DIGESTS)
      .where('body', 'not like', '%"credits"%')
      .execute();
    for (const o of old) await clear(db, { dataset: o.dataset, start: o.start_day, end: o.end_day });
  },
];

export const SCHEMA_VERSION = MIGRATIONS.length;

/**
 * Brings the store to this version's schema, in one transaction that one opener at a time runs: two servers
 * starting at once on a new store both find it migrated once. A store written by a newer version is left alone.
 */
export async function migrate(db: Db, engine: Engine): Promise<void> {
  await db.connection().execute(async (conn) => {
    // SQLite: take the write lock first, so that a second opener waits instead of failing its upgrade.
    await sql.raw(engine === 'sqlite' ? 'BEGIN IMMEDIATE' : 'BEGIN').execute(conn);
    try {
      if (engine === 'postgres')
        await sql
          .raw(`SELECT pg_advisory_xact_lock(hashtext('org-analytics-mcp migrate ' || current_schema()))`)
          .execute(conn);
      await upgrade(conn, engine);
      await sql.raw('COMMIT').execute(conn);
    } catch (error) {
      await sql
        .raw('ROLLBACK')
        .execute(conn)
        .catch(() => {});
      throw error;
    }
  });
}

async function upgrade(db: Db, engine: Engine): Promise<void> {
  await db.schema
    .createTable('history_meta')
    .ifNotExists()
    .addColumn('key', 'text', (c) => c.primaryKey())
    .addColumn('value', 'text', (c) => c.notNull())
    .execute();
  const row = await db
    .selectFrom('history_meta')
    .select('value')
    .where('key', '=', 'schema_version')
    .executeTakeFirst();
  const version = row ? Number(row.value) : 0;
  if (!Number.isInteger(version) || version > SCHEMA_VERSION)
    throw new HistoryUnusable(
      `the history store has schema version ${row?.value}, newer than this version of org-analytics-mcp knows (${SCHEMA_VERSION}); upgrade org-analytics-mcp, or point --history at another store`,
    );
  if (version === SCHEMA_VERSION) return;
  for (let v = version; v < SCHEMA_VERSION; v++) await MIGRATIONS[v]!(db, engine);
  await db
    .insertInto('history_meta')
    .values({ key: 'schema_version', value: String(SCHEMA_VERSION) })
    .onConflict((oc) => oc.column('key').doUpdateSet({ value: String(SCHEMA_VERSION) }))
    .execute();
}
