import type { Runtime } from '../runtime/runtime.js';

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
  // Unref'd: a pending run never keeps a server alive that is otherwise done.
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

/** What a scheduled job needs of the runtime: the client's refresh hour, and a log. */
export type ScheduleTarget = Pick<Runtime, 'client' | 'log'>;

/** What runs daily: the warm-up or the sync. */
export interface DailyJob<T extends ScheduleTarget> {
  /** One run; it logs its own outcome and never throws. */
  run(target: T, signal: AbortSignal): Promise<void>;
  /** Runs once at start, rather than first after the next refresh. */
  atStart?: boolean;
  /** Runs again within this long even before the next refresh (the sync: today's credit usage). */
  atLeastEveryMs?: number;
  /** Logged at debug, with the time, whenever the next run is planned. */
  plannedLine?: string;
}

/**
 * Runs a job shortly after each daily refresh (`nextWarmAt`), in the background of a running server: its requests
 * go at background priority, so serving is never delayed. `stop` cancels the next run and stops one under way.
 */
export class DailyScheduler<T extends ScheduleTarget> {
  /** When the next run is due (epoch ms); undefined when stopped. */
  nextRunAt: number | undefined;
  /** The run under way, if any. */
  running: Promise<void> | undefined;
  private timer: unknown;
  private target: T | undefined;
  private controller = new AbortController();

  constructor(
    private readonly job: DailyJob<T>,
    private readonly clock: WarmClock = realClock,
    private readonly random: () => number = Math.random,
  ) {}

  /** Plans the first run, or starts it at once for a job that runs at start; resolves when that one is over. */
  start(target: T): Promise<void> {
    if (this.target) return this.running ?? Promise.resolve();
    this.target = target;
    this.controller = new AbortController();
    if (this.job.atStart) return this.runNow();
    this.schedule();
    return Promise.resolve();
  }

  async stop(): Promise<void> {
    this.target = undefined;
    this.nextRunAt = undefined;
    this.clock.clearTimeout(this.timer);
    this.controller.abort(new Error('the server is shutting down'));
    await this.running;
  }

  private runNow(): Promise<void> {
    const target = this.target;
    if (!target) return Promise.resolve();
    const run = this.job.run(target, this.controller.signal).finally(() => {
      this.running = undefined;
      this.schedule();
    });
    this.running = run;
    return run;
  }

  private schedule(): void {
    if (!this.target) return;
    const now = this.clock.now();
    const daily = nextWarmAt(now, this.target.client.refreshHour, this.random);
    const at = this.job.atLeastEveryMs === undefined ? daily : Math.min(daily, now + this.job.atLeastEveryMs);
    this.nextRunAt = at;
    this.timer = this.clock.setTimeout(() => void this.runNow(), at - now);
    if (this.job.plannedLine) this.target.log.debug(this.job.plannedLine, { at: new Date(at).toISOString() });
  }
}
