import type { Runtime } from '../runtime/runtime.js';
import { CREDIT_REFRESH_MS } from '../domain/freshness.js';
import type { RuntimeHistory } from '../history/serving/runtime-history.js';
import { syncOnce } from '../history/sync/sync-run.js';
import { DailyScheduler, type WarmClock } from './daily-schedule.js';
import {
  afterStoredSync,
  deliverQueued,
  destinationsFor,
  queueAfterFailure,
  type AlertingTarget,
} from '../alerts/after-sync.js';
import { startDeliveryLoop, type DeliveryLoop } from '../alerts/delivery-loop.js';

/** `pii`, `secrets` and `org`: the runtime's, for what alerts carry and who gets them; `destinations`: by default --alerts-file's. */
export type SyncTarget = Pick<Runtime, 'client' | 'config' | 'log'> &
  Partial<Pick<Runtime, 'pii' | 'secrets' | 'org'>> &
  Pick<AlertingTarget, 'destinations'> & { history: RuntimeHistory };

/** One sync in the background; a failure is logged, never thrown. */
async function syncInBackground(target: SyncTarget, signal: AbortSignal): Promise<void> {
  const { log } = target;
  try {
    const outcome = await syncOnce(target.client, target.history.source, target.config, {
      signal,
      // The moment the questions asked most answer from the store is worth saying; the rest is detail.
      onProgress: (line) => (line.answerable ? log.info(line.text) : log.debug(line.text)),
      // New anomalies go to anomalies://latest, and its subscribers hear of them; then the alerts, under the lock.
      after: async () => {
        const { fresh } = await afterStoredSync(target, signal, (error) =>
          log.warn('could not publish the anomalies', { error: error.message }),
        );
        if (fresh.length) log.info('new anomalies published', { count: fresh.length });
      },
    });
    if (!outcome.ran) return log.info(`history sync skipped: ${outcome.reason}`);
    const { result } = outcome;
    if (result.blocks || result.failed.length)
      log.info('history sync done', {
        blocks: result.blocks,
        requests: result.requests,
        failed: result.failed.slice(0, 5).map((f) => `${f.dataset} ${f.days}: ${f.error}`),
      });
    if (result.failed.length) await queueAfterFailure(target, result);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    log.warn('history sync failed', { error: message });
    await queueAfterFailure(target, { error: message });
  } finally {
    await deliverQueued(target, signal);
  }
}

/**
 * With a history store, the warm-up is the sync: it backfills at start, then runs after each daily
 * refresh (the warm-up's time, with its jitter) and every 90 minutes for today's credit usage. Its
 * requests go at background priority, within --sync-share of each rate.
 */
export class SyncScheduler extends DailyScheduler<SyncTarget> {
  private delivery: DeliveryLoop | undefined;

  constructor(clock?: WarmClock, random?: () => number) {
    super({ run: syncInBackground, atStart: true, atLeastEveryMs: CREDIT_REFRESH_MS }, clock, random);
  }

  /**
   * Between syncs, the outbox is delivered every 10 s: a retry comes within 30 s, and what a killed process left
   * goes at start. A bad alerts file throws here, refusing the server's start.
   */
  override start(target: SyncTarget): Promise<void> {
    const destinations = destinationsFor(target);
    if (destinations.length && !this.delivery)
      this.delivery = startDeliveryLoop(target.history.source.store, destinations, { log: target.log });
    return super.start(target);
  }

  override async stop(): Promise<void> {
    await super.stop();
    await this.delivery?.stop();
    this.delivery = undefined;
  }
}
