import type { AnalyticsClient } from '../../upstream/client.js';
import type { HistorySource } from '../serving/history-source.js';
import { buildSpans } from '../store/derived/spans.js';
import { buildTrailingSpans } from './trailing-spans.js';
import { dropExpiredRanges } from '../store/range-blocks.js';
import { runSync, type SyncOptions, type SyncResult } from './sync.js';
import { SyncLock } from './sync-lock.js';

const PROGRESS_MS = 5_000;

/** The demo's days and months: what the tour asks about, synced in seconds, then answered from the store. */
export const DEMO_SYNC = { historyDays: 60, historyMonths: 2, syncShare: 1 };

export interface SyncSettings {
  historyDays: number;
  historyMonths: number;
  syncShare: number;
}

/**
 * One sync under the store's lock: it runs, or says who holds the lock. `after`: what follows a sync that
 * stored everything, still under the lock (publishing the anomalies it found: one syncer at a time).
 */
export async function syncOnce(
  client: AnalyticsClient,
  source: HistorySource,
  settings: SyncSettings,
  options: Pick<SyncOptions, 'signal' | 'onProgress'> & { after?: () => Promise<void>; holder?: string },
): Promise<{ ran: true; result: SyncResult } | { ran: false; reason: string }> {
  const lock = new SyncLock(source.store, Date.now, options.holder);
  const got = await lock.acquire();
  if (!got.ok)
    return {
      ran: false,
      reason: `another sync holds the store (pid ${got.holder.pid} on ${got.holder.host}); nothing to do`,
    };
  try {
    // A store filled by an earlier version gets the digests the insights tools read, once.
    await source.store.fillDigests(options.signal);
    const result = await runSync(client, source, {
      historyDays: settings.historyDays,
      historyMonths: settings.historyMonths,
      share: settings.syncShare,
      signal: options.signal,
      onProgress: options.onProgress,
    });
    // The days stored (by this sync, or as answers passed) summed into spans: long ranges then read a few blocks.
    // After a backfill this takes minutes at 50,000 people: a line every 5 s says it goes on.
    let said = Date.now();
    result.spans = await buildSpans(source.store.db, options.signal, (built) => {
      if (Date.now() - said < PROGRESS_MS) return;
      said = Date.now();
      const text = `spans: ${built} runs of stored days or months summed so far`;
      options.onProgress?.({ text, done: built, total: built, requests: result.requests, secondsLeft: null });
    });
    result.spans += await buildTrailingSpans(source.store, client.days(), client.now(), options.signal);
    await dropExpiredRanges(source.store.db, client.now());
    if (options.after && result.failed.length === 0 && !options.signal?.aborted) await options.after();
    return { ran: true, result };
  } finally {
    await lock.release();
  }
}
