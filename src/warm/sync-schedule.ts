import type { Runtime } from '../runtime/runtime.js';
import { CREDIT_REFRESH_MS } from '../domain/freshness.js';
import type { RuntimeHistory } from '../history/serving/runtime-history.js';
import { syncOnce } from '../history/sync/sync-run.js';
import { publishAnomalies } from '../insights/anomaly-feed.js';
import { nextWarmAt, realClock, type WarmClock } from './warm-schedule.js';

export type SyncTarget = Pick<Runtime, 'client' | 'config' | 'log'> & { history: RuntimeHistory };

/**
 * With a history store, the warm-up is the sync: it backfills at start, then runs after each daily
 * refresh (the warm-up's time, with its jitter) and every 90 minutes for today's credit usage. Its
 * requests go at background priority, within --sync-share of each rate; a failure is logged, never thrown.
 */
export class SyncScheduler {
  nextRunAt: number | undefined;
  running: Promise<void> | undefined;
  private timer: unknown;
  private target: SyncTarget | undefined;
  private controller = new AbortController();

  constructor(
    private readonly clock: WarmClock = realClock,
    private readonly random: () => number = Math.random,
  ) {}

  /** Starts the first sync at once; `first` resolves when it is over. */
  start(target: SyncTarget): Promise<void> {
    if (this.target) return this.running ?? Promise.resolve();
    this.target = target;
    this.controller = new AbortController();
    return this.runNow();
  }

  async stop(): Promise<void> {
    this.target = undefined;
    this.nextRunAt = undefined;
    this.clock.clearTimeout(this.timer);
    this.controller.abort(new Error('the server is shutting down'));
    await this.running;
  }

  private runNow(): Promise<void> {
    const run = this.run().finally(() => {
      this.running = undefined;
      this.schedule();
    });
    this.running = run;
    return run;
  }

  private schedule(): void {
    if (!this.target) return;
    const now = this.clock.now();
    const at = Math.min(nextWarmAt(now, this.target.client.refreshHour, this.random), now + CREDIT_REFRESH_MS);
    this.nextRunAt = at;
    this.timer = this.clock.setTimeout(() => void this.runNow(), at - now);
  }

  private async run(): Promise<void> {
    const target = this.target;
    if (!target) return;
    const { log } = target;
    try {
      const signal = this.controller.signal;
      const outcome = await syncOnce(target.client, target.history.source, target.config, {
        signal,
        // The moment the questions asked most answer from the store is worth saying; the rest is detail.
        onProgress: (line) => (line.answerable ? log.info(line.text) : log.debug(line.text)),
        // New anomalies go to anomalies://latest, and its subscribers hear of them.
        after: () =>
          publishAnomalies(target.client, target.config, target.history.source.store, signal).then(
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
}
