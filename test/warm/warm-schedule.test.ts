import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configSchema } from '../../src/config/config.js';
import { createLogger } from '../../src/logger.js';
import { startSimulator, type Simulator } from '../../src/simulator/index.js';
import { WARM_JITTER_MS, nextWarmAt } from '../../src/warm/daily-schedule.js';
import { WarmScheduler } from '../../src/warm/warm-schedule.js';
import { parseWarmList } from '../../src/warm/warm-list.js';
import { createRuntime } from '../../src/runtime/runtime.js';
import { DEFAULT_REFRESH_HOUR_UTC } from '../../src/domain/published-days.js';
import { dailyPolicy } from '../../src/domain/freshness.js';
import { clientFor } from '../helpers/client.js';
import { NOW } from '../helpers/sim.js';
import { ManualClock } from '../helpers/manual-clock.js';

const at = (iso: string) => Date.parse(iso);

describe('when the warm-up runs', () => {
  it.each([
    ['2026-11-21T10:00:00Z', 0, '2026-11-22T04:10:00.000Z'],
    ['2026-11-21T01:00:00Z', 0, '2026-11-21T04:10:00.000Z'],
    ['2026-11-21T04:09:59Z', 0, '2026-11-21T04:10:00.000Z'],
    ['2026-11-21T04:10:00Z', 0, '2026-11-22T04:10:00.000Z'],
    ['2026-12-31T23:59:00Z', 0.5, '2027-01-01T04:15:00.000Z'],
  ])('after %s with jitter %d: %s', (now, jitter, expected) => {
    expect(new Date(nextWarmAt(at(now), DEFAULT_REFRESH_HOUR_UTC, () => jitter)).toISOString()).toBe(expected);
  });

  it('follows --refresh-hour: an hour and ten minutes past it', () => {
    expect(new Date(nextWarmAt(at('2026-11-21T02:00:00Z'), 0, () => 0)).toISOString()).toBe('2026-11-22T01:10:00.000Z');
    expect(new Date(nextWarmAt(at('2026-11-21T01:00:00Z'), 5, () => 0)).toISOString()).toBe('2026-11-21T06:10:00.000Z');
  });

  it('lies between 04:10 and 04:20 UTC of the next day whatever the jitter', () => {
    const now = at('2026-11-21T10:00:00Z');
    const seen = Array.from({ length: 500 }, () => nextWarmAt(now, DEFAULT_REFRESH_HOUR_UTC));
    for (const t of seen) {
      expect(t).toBeGreaterThanOrEqual(at('2026-11-22T04:10:00Z'));
      expect(t).toBeLessThan(at('2026-11-22T04:10:00Z') + WARM_JITTER_MS);
    }
    expect(new Set(seen).size).toBeGreaterThan(1);
  });

  it.each([0, 2, 3, 5, 23])(
    'fetches what the cache then keeps until the next refresh, not 10 minutes (--refresh-hour %d)',
    (hour) => {
      for (const jitter of [0, 0.5, 0.999]) {
        const warmAt = nextWarmAt(at('2026-11-21T10:00:00Z'), hour, () => jitter);
        const { ttlMs, nextRefreshAt } = dailyPolicy(warmAt, undefined, hour);
        expect(ttlMs).toBe(nextRefreshAt! - warmAt);
        expect(ttlMs).toBeGreaterThan(22 * 3_600_000);
      }
    },
  );
});

describe('the scheduler of a running server', () => {
  let sim: Simulator;
  beforeAll(async () => {
    sim = await startSimulator({ users: 300, now: NOW, rateLimit: false, token: 'schedule' });
  });
  afterAll(() => sim.close());

  it('warms after each refresh, logs start and end at info, and stops', async () => {
    const client = clientFor(sim);
    const lines: string[] = [];
    const log = createLogger(
      'info',
      (t) => t,
      (l) => lines.push(l),
    );
    const config = configSchema.parse({ token: sim.token, baseUrl: sim.url });
    const clock = new ManualClock(at(NOW));
    const scheduler = new WarmScheduler({
      clock,
      random: () => 0.25,
      items: parseWarmList('dau-count:last_7_days,user-activity:last_7_days'),
    });
    scheduler.start({ client, config, log, secrets: [sim.token] });
    try {
      expect(clock.timers.map((t) => new Date(t.at).toISOString())).toEqual(['2026-11-22T04:12:30.000Z']);
      expect(sim.requests()).toEqual([]);

      clock.fire();
      await scheduler.running;
      const messages = lines.map((l) => JSON.parse(l) as { level: string; message: string; pages?: number });
      expect(messages.map((m) => [m.level, m.message])).toEqual([
        ['info', 'cache warm-up starting'],
        ['info', 'cache warm-up done'],
      ]);
      expect(messages[1]!.pages).toBeGreaterThan(0);
      expect(sim.requests().length).toBe(messages[1]!.pages);
      // The next one, a day later.
      expect(clock.timers.map((t) => new Date(t.at).toISOString())).toEqual(['2026-11-23T04:12:30.000Z']);

      await scheduler.stop();
      expect(clock.timers).toEqual([]);
      expect(scheduler.nextRunAt).toBeUndefined();
    } finally {
      await scheduler.stop();
      await client.close();
    }
  });

  it("runs at the server's --refresh-hour: the runtime's client carries it, as the cache and the ranges do", async () => {
    const config = configSchema.parse({ token: sim.token, baseUrl: sim.url, cacheDir: 'none', refreshHour: 5 });
    const runtime = await createRuntime(config);
    const clock = new ManualClock(at(NOW));
    const scheduler = new WarmScheduler({ clock, random: () => 0, items: parseWarmList('dau-count:last_7_days') });
    try {
      expect(runtime.client.refreshHour).toBe(5);
      scheduler.start(runtime);
      expect(clock.timers.map((t) => new Date(t.at).toISOString())).toEqual(['2026-11-22T06:10:00.000Z']);
    } finally {
      await scheduler.stop();
      await runtime.close();
    }
  });
});
