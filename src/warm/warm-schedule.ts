import { warmListOf, type WarmItem } from './warm-list.js';
import { warmUp, type WarmTarget } from './warm.js';

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;
/**
 * An hour and ten minutes after the refresh hour (--refresh-hour): past the hour in which the cache keeps daily
 * answers 10 minutes at most (late corrections may still land), so what the warm-up fetches is kept until the next
 * refresh rather than dropped at once.
 */
export const WARM_DELAY_MS = 70 * MINUTE;
/** Spread over ten minutes, so that servers of many organizations do not all ask at once. */
export const WARM_JITTER_MS = 10 * MINUTE;

/** The clock and timer the scheduler runs on; tests inject their own. */
export interface WarmClock {
  now(): number;
  setTimeout(run: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const realClock: WarmClock = {
  now: Date.now,
  // Unref'd: a pending warm-up never keeps a server alive that is otherwise done.
  setTimeout: (run, ms) => setTimeout(run, ms).unref(),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

/**
 * The next warm-up after `now`: an hour and ten minutes past the refresh hour (04:10 UTC by default) plus up to 10
 * minutes of jitter, today's if that is still ahead, else tomorrow's.
 */
export function nextWarmAt(now: number, refreshHour: number, random: () => number = Math.random): number {
  let at = Math.floor(now / DAY) * DAY + refreshHour * 60 * MINUTE + WARM_DELAY_MS;
  if (at <= now) at += DAY;
  return at + Math.floor(random() * WARM_JITTER_MS);
}

export interface WarmScheduleOptions {
  clock?: WarmClock;
  random?: () => number;
  /** What to fetch; by default ANALYTICS_WARM_LIST, or the default list. */
  items?: WarmItem[];
}

/**
 * Warms the cache shortly after each daily refresh, in the background of a running server: requests go at
 * background priority, so serving is never delayed, and a failure is logged, never thrown.
 */
export class WarmScheduler {
  /** When the next warm-up is due (epoch ms); undefined when stopped. */
  nextRunAt: number | undefined;
  /** The warm-up under way, if any. */
  running: Promise<void> | undefined;
  private timer: unknown;
  private target: WarmTarget | undefined;
  private controller = new AbortController();
  private readonly clock: WarmClock;
  private readonly random: () => number;
  private readonly items: WarmItem[];

  constructor(options: WarmScheduleOptions = {}) {
    this.clock = options.clock ?? realClock;
    this.random = options.random ?? Math.random;
    this.items = options.items ?? warmListOf(process.env.ANALYTICS_WARM_LIST);
  }

  start(runtime: WarmTarget): void {
    if (this.target) return;
    this.target = runtime;
    this.controller = new AbortController();
    this.schedule();
  }

  /** Cancels the next warm-up and stops one under way. */
  async stop(): Promise<void> {
    this.target = undefined;
    this.nextRunAt = undefined;
    this.clock.clearTimeout(this.timer);
    this.controller.abort(new Error('the server is shutting down'));
    await this.running;
  }

  private schedule(): void {
    if (!this.target) return;
    const at = nextWarmAt(this.clock.now(), this.target.client.refreshHour, this.random);
    this.nextRunAt = at;
    this.timer = this.clock.setTimeout(() => {
      this.running = this.run().finally(() => {
        this.running = undefined;
        this.schedule();
      });
    }, at - this.clock.now());
    this.target.log.debug('next cache warm-up scheduled', { at: new Date(at).toISOString() });
  }

  private async run(): Promise<void> {
    const target = this.target;
    if (!target) return;
    const started = this.clock.now();
    target.log.info('cache warm-up starting', { items: this.items.map((i) => i.name) });
    try {
      const outcome = await warmUp(target, this.items, { signal: this.controller.signal });
      const seconds = Math.round((this.clock.now() - started) / 1000);
      if (!outcome.ran) {
        target.log.info(`cache warm-up ${outcome.reason}`);
        return;
      }
      const failed = outcome.results.filter((r) => r.error);
      target.log.info('cache warm-up done', {
        seconds,
        pages: outcome.results.reduce((n, r) => n + r.pages, 0),
        fetched: outcome.results.filter((r) => !r.error && !r.fromCache).length,
        from_cache: outcome.results.filter((r) => !r.error && r.fromCache).length,
        failed: failed.map((r) => `${r.name}: ${r.error}`),
      });
    } catch (error) {
      target.log.warn('cache warm-up failed', { error: error instanceof Error ? error.message : String(error) });
    }
  }
}
