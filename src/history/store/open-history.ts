import { chmodSync, closeSync, existsSync, mkdirSync, openSync, renameSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { Kysely, SqliteDialect } from 'kysely';
import { HistoryStore } from './history-store.js';
import { isDamaged } from './history-errors.js';
import { openPostgres } from './open-postgres.js';
import { migrate } from './migrations.js';
import type { HistoryTables } from './store-tables.js';
import type { HistoryWhere } from '../../config/options-history.js';

/** The store --history names, auto settled: nowhere, a SQLite file, or a PostgreSQL database. */
export type HistoryTarget = Exclude<HistoryWhere, { kind: 'auto' }>;

/** `--history` as configured: auto is a file in the cache directory (none without one); a path is made absolute. */
export function historyTarget(where: HistoryWhere, cacheDir: string | undefined, credential: string): HistoryTarget {
  if (where.kind === 'auto')
    return cacheDir ? { kind: 'sqlite', path: join(cacheDir, `history-${credential}.sqlite`) } : { kind: 'none' };
  return where.kind === 'sqlite' ? { kind: 'sqlite', path: resolve(where.path) } : where;
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
