import { Kysely, PostgresDialect } from 'kysely';
import { HistoryStore } from './history-store.js';
import { HistoryUnusable } from './history-errors.js';
import { migrate } from './migrations.js';
import type { HistoryTables } from './store-tables.js';

/** The URL without its password, for messages. */
export function safeUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return 'postgres://…';
  }
}

/** Opens (and migrates) the store in its schema of the database; one that cannot be used throws HistoryUnusable. */
export async function openPostgres(url: string, schema: string): Promise<HistoryStore> {
  const { default: pg } = await import('pg');
  const admin = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000 });
  try {
    await admin.connect();
    // Two servers starting at once would both create the schema, and one fail: one at a time.
    await admin.query('BEGIN');
    await admin.query(`SELECT pg_advisory_xact_lock(hashtext('org-analytics-mcp schema'))`);
    await admin.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
    await admin.query('COMMIT');
  } catch (error) {
    throw new HistoryUnusable(`PostgreSQL at ${safeUrl(url)} is not reachable (${(error as Error).message})`, true);
  } finally {
    await admin.end().catch(() => {});
  }
  const pool = new pg.Pool({
    connectionString: url,
    max: 4,
    connectionTimeoutMillis: 5_000,
    // A database that stops answering fails the read, and the call goes on live, instead of waiting forever.
    query_timeout: 20_000,
    keepAlive: true,
    options: `-c search_path="${schema}"`,
  });
  // A connection that drops is not a crash, idle in the pool or lent to a query: that query fails, the call goes
  // on live, and the pool replaces the connection (pg emits 'error' on a lent client, which no one else hears).
  pool.on('error', () => {});
  pool.on('connect', (client) => client.on('error', () => {}));
  const db = new Kysely<HistoryTables>({ dialect: new PostgresDialect({ pool }) });
  try {
    await migrate(db, 'postgres');
  } catch (error) {
    await db.destroy().catch(() => {});
    if (error instanceof HistoryUnusable) throw error;
    throw new HistoryUnusable(`PostgreSQL at ${safeUrl(url)} cannot be used (${(error as Error).message})`);
  }
  const sessionLock = async (name: string) => {
    const client = new pg.Client({
      connectionString: url,
      connectionTimeoutMillis: 5_000,
      keepAlive: true,
      // Who holds it, as pg_stat_activity shows it to an operator.
      application_name: `org-analytics-mcp ${name} ${schema}`,
    });
    client.on('error', () => {});
    const end = () => client.end().catch(() => {});
    try {
      await client.connect();
      // The server notices within about 30 s (not hours) that the holder's host went away, and frees the lock.
      await client.query('SET tcp_keepalives_idle = 10; SET tcp_keepalives_interval = 5; SET tcp_keepalives_count = 4');
      const key = `org-analytics-mcp ${name} ${schema}`;
      const { rows } = await client.query<{ got: boolean }>('SELECT pg_try_advisory_lock(hashtext($1)) AS got', [key]);
      if (rows[0]?.got) return { release: end };
    } catch (error) {
      await end();
      throw error;
    }
    await end();
    return null;
  };
  return new HistoryStore(db, 'postgres', `${safeUrl(url)} (schema ${schema})`, () => db.destroy(), sessionLock);
}
