import { DailyScheduler, realClock, type WarmClock } from './daily-schedule.js';
import { warmListOf, type WarmItem } from './warm-list.js';
import { warmUp, type WarmTarget } from './warm.js';

export interface WarmScheduleOptions {
  clock?: WarmClock;
  random?: () => number;
  /** What to fetch; by default ANALYTICS_WARM_LIST, or the default list. */
  items?: WarmItem[];
}

/** One warm-up in the background; a failure is logged, never thrown. */
async function warmInBackground(target: WarmTarget, items: WarmItem[], signal: AbortSignal, clock: WarmClock) {
  const started = clock.now();
  target.log.info('cache warm-up starting', { items: items.map((i) => i.name) });
  try {
    const outcome = await warmUp(target, items, { signal });
    const seconds = Math.round((clock.now() - started) / 1000);
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

/** Warms the cache shortly after each daily refresh, in the background of a running server without a history store. */
export class WarmScheduler extends DailyScheduler<WarmTarget> {
  constructor(options: WarmScheduleOptions = {}) {
    const clock = options.clock ?? realClock;
    const items = options.items ?? warmListOf(process.env.ANALYTICS_WARM_LIST);
    const run = (target: WarmTarget, signal: AbortSignal) => warmInBackground(target, items, signal, clock);
    super({ run, plannedLine: 'next cache warm-up scheduled' }, clock, options.random);
  }
}
