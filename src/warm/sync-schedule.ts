import type { Runtime } from '../runtime/runtime.js';
import { CREDIT_REFRESH_MS } from '../domain/freshness.js';
import type { RuntimeHistory } from '../history/serving/runtime-history.js';
import { syncOnce } from '../history/sync/sync-run.js';
import { publishAnomalies } from '../insights/anomaly-feed.js';
import { DailyScheduler, type WarmClock } from './daily-schedule.js';

export type SyncTarget = Pick<Runtime, 'client' | 'config' | 'log'> & { history: RuntimeHistory };

/** One sync in the background; a failure is logged, never thrown. */
async function syncInBackground(target: SyncTarget, signal: AbortSignal): Promise<void> {
  const { log } = target;
  try {
    const outcome = await syncOnce(target.client, target.history.source, target.config, {
      signal,
      // The moment the questions asked most answer from the store is worth saying; the rest is detail.
      onProgress: (line) => (line.answerable ? log.info(line.text) : log.debug(line.text)),
      // New anomalies go to anomalies://latest, and its subscribers hear of them.
      after: () =>
        publishAnomalies(
          target.client,
          target.config,
          target.history.source.store,
          signal,
          target.history.source.digest,
        ).then(
          (fresh) => void (fresh.length && log.info('new anomalies published', { count: fresh.length })),
          (error: Error) => log.warn('could not publish the anomalies', { error: error.message }),
        ),
    });
    if (!outcome.ran) return log.info(`history sync skipped: ${outcome.reason}`);
    const { result } = outcome;
    if (result.blocks || result.failed.length)
      log.info('history sync done', {
        blocks: result.blocks,
        requests: result.requests,
        failed: result.failed.slice(0, 5).map((f) => `${f.dataset} ${f.days}: ${f.error}`),
      });
  } catch (error) {
    log.warn('history sync failed', { error: error instanceof Error ? error.message : String(error) });
  }
}

/**
 * With a history store, the warm-up is the sync: it backfills at start, then runs after each daily
 * refresh (the warm-up's time, with its jitter) and every 90 minutes for today's credit usage. Its
 * requests go at background priority, within --sync-share of each rate.
 */
export class SyncScheduler extends DailyScheduler<SyncTarget> {
  constructor(clock?: WarmClock, random?: () => number) {
    super({ run: syncInBackground, atStart: true, atLeastEveryMs: CREDIT_REFRESH_MS }, clock, random);
  }
}
