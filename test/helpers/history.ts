import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { attachHistory, type RuntimeHistory } from '../../src/history/serving/runtime-history.js';
import { syncOnce } from '../../src/history/sync/sync-run.js';
import type { SyncResult } from '../../src/history/sync/sync.js';
import { createLogger } from '../../src/logger.js';
import type { DigestPort } from '../../src/upstream/history-port.js';
import { harness, type Harness, type HarnessOptions } from './mcp.js';

export interface StoredHarness extends Harness {
  history: RuntimeHistory;
  /** The sync that filled the store before the first call. */
  synced: SyncResult;
  /** The store: a SQLite file, or a PostgreSQL URL. */
  where: string;
}

export interface StoreOptions {
  historyDays: number;
  historyMonths: number;
  /** SQLite (a fresh file) by default; PostgreSQL: a fresh database at 127.0.0.1:5432, dropped on close. */
  engine?: 'sqlite' | 'postgres';
  /** The sync's progress lines. */
  onProgress?: (line: string) => void;
}

const ADMIN = 'postgres://postgres@127.0.0.1:5432/postgres';

/** Runs one statement on the server's own database (CREATE and DROP DATABASE cannot run in a transaction). */
async function admin(sql: string): Promise<void> {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: ADMIN });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/** Where the store lives, and how it is removed afterwards. */
async function storeTarget(engine: 'sqlite' | 'postgres'): Promise<{ where: string; remove(): Promise<void> }> {
  if (engine === 'postgres') {
    const name = `history_test_${process.pid}_${Math.random().toString(36).slice(2, 10)}`;
    await admin(`CREATE DATABASE "${name}"`);
    // A test's database need not survive a crash: commits that skip waiting for the disk make its sync seconds faster.
    await admin(`ALTER DATABASE "${name}" SET synchronous_commit = off`);
    return {
      where: `postgres://postgres@127.0.0.1:5432/${name}`,
      remove: () => admin(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`),
    };
  }
  const dir = mkdtempSync(join(tmpdir(), 'history-harness-'));
  return {
    where: join(dir, 'store', 'history.sqlite'),
    remove: async () => rmSync(dir, { recursive: true, force: true }),
  };
}

/**
 * A harness whose client has a history store (a fresh SQLite file in a temporary directory, or a fresh
 * PostgreSQL database), synced once from its simulator before it is returned: the tools answer the stored
 * days from it.
 */
export async function storedHarness(store: StoreOptions, options: HarnessOptions = {}): Promise<StoredHarness> {
  const target = await storeTarget(store.engine ?? 'sqlite');
  let history: RuntimeHistory | undefined;
  // The server is built before the store is attached: its tools read the digests of the store once it is.
  const digests: DigestPort = {
    digests: async (name, days, byDay) => (await history?.source.digest.digests(name, days, byDay)) ?? null,
    names: async (ids) => (await history?.source.digest.names(ids)) ?? new Map(),
    lastId: async () => (await history?.source.digest.lastId()) ?? 0,
  };
  const h = await harness({ digests, ...options }).catch(async (error: unknown) => {
    await target.remove();
    throw error;
  });
  const log = createLogger(
    'warn',
    (t) => t,
    (line) => h.logs.push(line),
  );
  try {
    history = await attachHistory(h.upstream, { history: target.where, cacheDir: undefined, demo: false }, log);
    if (!history) throw new Error(`the history store could not be opened: ${h.logs.join('\n')}`);
    const outcome = await syncOnce(
      h.upstream,
      history.source,
      { historyDays: store.historyDays, historyMonths: store.historyMonths, syncShare: 1 },
      { onProgress: store.onProgress && ((line) => store.onProgress!(line.text)) },
    );
    if (!outcome.ran) throw new Error(outcome.reason);
    if (outcome.result.failed.length) throw new Error(`the sync failed: ${JSON.stringify(outcome.result.failed)}`);
    const opened = history;
    return {
      ...h,
      history: opened,
      synced: outcome.result,
      where: target.where,
      async close() {
        await h.close();
        await opened.close();
        await target.remove();
      },
    };
  } catch (error) {
    await history?.close();
    await h.close();
    await target.remove();
    throw error;
  }
}

/** The answer as compared between the store and the live path: where and when it was fetched left out. */
export function comparable(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(comparable);
  if (!value || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    if (k === 'freshness' && v && typeof v === 'object') {
      // What the figures cover stays compared; where and when they were fetched differs by design.
      const { fetched_at: _f, from_cache: _c, source: _s, next_refresh_at: _n, ...kept } = v as Record<string, unknown>;
      out[k] = kept;
    } else out[k] = comparable(v);
  }
  return out;
}
