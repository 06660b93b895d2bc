import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { attachHistory, type RuntimeHistory } from '../../src/history/runtime-history.js';
import { syncOnce } from '../../src/history/sync-run.js';
import type { SyncResult } from '../../src/history/sync.js';
import { createLogger } from '../../src/logger.js';
import { harness, type Harness, type HarnessOptions } from './mcp.js';

export interface StoredHarness extends Harness {
  history: RuntimeHistory;
  /** The sync that filled the store before the first call. */
  synced: SyncResult;
  /** The store's SQLite file. */
  path: string;
}

export interface StoreOptions {
  historyDays: number;
  historyMonths: number;
}

/**
 * A harness whose client has a history store (a fresh SQLite file in a temporary directory), synced
 * once from its simulator before it is returned: the tools answer the stored days from it.
 */
export async function storedHarness(store: StoreOptions, options: HarnessOptions = {}): Promise<StoredHarness> {
  const h = await harness(options);
  const dir = mkdtempSync(join(tmpdir(), 'history-harness-'));
  const path = join(dir, 'store', 'history.sqlite');
  const log = createLogger(
    'warn',
    (t) => t,
    (line) => h.logs.push(line),
  );
  let history: RuntimeHistory | undefined;
  try {
    history = await attachHistory(h.upstream, { history: path, cacheDir: undefined, demo: false }, log);
    if (!history) throw new Error(`the history store could not be opened: ${h.logs.join('\n')}`);
    const outcome = await syncOnce(h.upstream, history.source, { ...store, syncShare: 1 }, {});
    if (!outcome.ran) throw new Error(outcome.reason);
    if (outcome.result.failed.length) throw new Error(`the sync failed: ${JSON.stringify(outcome.result.failed)}`);
    const opened = history;
    return {
      ...h,
      history: opened,
      synced: outcome.result,
      path,
      async close() {
        await h.close();
        await opened.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await history?.close();
    await h.close();
    rmSync(dir, { recursive: true, force: true });
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
