import { chmodSync, closeSync, existsSync, mkdirSync, openSync, renameSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { Kysely, PostgresDialect, SqliteDialect } from 'kysely';
import { HistoryStore } from './history-store.js';
import { HistoryUnusable, isDamaged } from './history-errors.js';
import { migrate } from './migrations.js';
import type { HistoryTables } from './store-tables.js';

/** Where --history points: nowhere, a SQLite file, or a PostgreSQL database. */
export type HistoryTarget = { kind: 'none' } | { kind: 'sqlite'; path: string } | { kind: 'postgres'; url: string };

/** `--history` as configured: auto (a file in the cache directory, none without one), none, a path or a postgres:// URL. */
export function historyTarget(
  configured: string | undefined,
  cacheDir: string | undefined,
  credential: string,
): HistoryTarget {
  const value = (configured ?? 'auto').trim();
  if (value.toLowerCase() === 'none') return { kind: 'none' };
  if (/^postgres(ql)?:\/\//i.test(value)) return { kind: 'postgres', url: value };
  if (value.toLowerCase() === 'auto')
    return cacheDir ? { kind: 'sqlite', path: join(cacheDir, `history-${credential}.sqlite`) } : { kind: 'none' };
  return { kind: 'sqlite', path: resolve(value) };
}

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

/** What opening a store tells the operator, once, on stderr. */
export interface OpenLog {
  warn(message: string, fields?: Record<string, unknown>): void;
}

async function openSqlite(path: string): Promise<HistoryStore> {
  const { default: Database } = await import('better-sqlite3');
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  // Created 0600 before SQLite opens it: the rows hold emails.
  if (!existsSync(path)) closeSync(openSync(path, 'a', 0o600));
  chmodSync(path, 0o600);
  const database = new Database(path, { timeout: 10_000 });
  try {
    database.pragma('journal_mode = WAL');
    database.pragma('synchronous = NORMAL');
    const db = new Kysely<HistoryTables>({ dialect: new SqliteDialect({ database }) });
    await migrate(db, 'sqlite');
    for (const side of ['-wal', '-shm']) if (existsSync(path + side)) chmodSync(path + side, 0o600);
    return new HistoryStore(db, 'sqlite', path, () => db.destroy());
  } catch (error) {
    database.close();
    throw error;
  }
}

async function openPostgres(url: string, schema: string): Promise<HistoryStore> {
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
    throw new HistoryUnusable(`PostgreSQL at ${safeUrl(url)} is not reachable (${(error as Error).message})`);
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

/**
 * Opens (and migrates) the store the target names. A damaged SQLite file is moved aside, next to it under a
 * new name, and a new one started; a store that cannot be used throws HistoryUnusable.
 */
export async function openHistory(
  target: HistoryTarget,
  credential: string,
  log?: OpenLog,
): Promise<HistoryStore | undefined> {
  if (target.kind === 'none') return undefined;
  if (target.kind === 'postgres') return openPostgres(target.url, `org_analytics_${credential}`);
  try {
    return await openSqlite(target.path);
  } catch (error) {
    if (!isDamaged(error)) throw error;
    const aside = `${target.path}.damaged-${new Date().toISOString().replace(/[:.]/g, '-')}`;
    for (const side of ['', '-wal', '-shm'])
      if (existsSync(target.path + side)) renameSync(target.path + side, aside + side);
    log?.warn('the history store was damaged: moved aside, a new one started (answers are live until it fills)', {
      moved_to: aside,
      reason: (error as Error).message,
    });
    return openSqlite(target.path);
  }
}
