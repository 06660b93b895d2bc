import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../../src/simulator/index.js';
import type { AnalyticsClient } from '../../../src/upstream/client.js';
import { dauCount } from '../../../src/upstream/endpoints/dau-count.js';
import { RateLimiters, type Priority } from '../../../src/upstream/limits/limiter.js';
import { DEFAULT_LIMITS } from '../../../src/upstream/limits/limits-config.js';
import { connectRedis, type SharedRedis } from '../../../src/upstream/limits/redis-connection.js';
import { clientFor } from '../../helpers/client.js';
import { NOW } from '../../helpers/sim.js';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

let sim: Simulator | undefined;
let client: AnalyticsClient | undefined;
let limiters: RateLimiters | undefined;
let other: RateLimiters | undefined;
let redis: SharedRedis | undefined;
afterEach(async () => {
  await limiters?.stop();
  await other?.stop();
  await client?.close();
  await sim?.close();
  if (redis) {
    const keys = await redis.client.keys(`${redis.prefix}*`);
    if (keys.length) await redis.client.del(keys);
    await redis.close();
  }
  limiters = other = client = sim = redis = undefined;
});

async function sharedRedis(): Promise<SharedRedis> {
  const shared = connectRedis(REDIS_URL, { prefix: `test-priority-${randomBytes(6).toString('hex')}:` });
  while (!shared.ready()) await new Promise((resolve) => setTimeout(resolve, 10));
  return shared;
}

/** Schedules `count` tasks of one priority on `general`; each records its start in `starts`, then calls `then`. */
function flood(on: RateLimiters, starts: string[], label: string, count: number, priority: Priority, then = () => {}) {
  const task = async () => {
    starts.push(label);
    then();
  };
  return Array.from({ length: count }, () => on.schedule('general', task, undefined, priority));
}

/**
 * Floods `on` with background requests and, from inside the `at`-th one (so that it is surely under way),
 * schedules three interactive ones. Returns the start order and how many had started when they were scheduled.
 */
async function overtake(on: RateLimiters, at: number, alongside: Array<Promise<void>> = []) {
  const starts: string[] = [];
  let interactive: Array<Promise<void>> = [];
  let before = -1;
  const background = flood(on, starts, 'b', 12, 'background', () => {
    if (starts.length !== at) return;
    before = starts.length;
    interactive = flood(on, starts, 'i', 3, 'interactive');
  });
  await Promise.all([...background, ...alongside]);
  await Promise.all(interactive);
  return { starts, before };
}

describe('interactive requests go first', () => {
  // One token per 100 ms and a burst of one: every request after the first queues. Scheduling goes through a few
  // timer turns of Bottleneck's store; at 20 ms a token, a machine busy with other tests let a second one pass.
  const fast = { ...DEFAULT_LIMITS, general: { perMinute: 600, burst: 2 }, pauseMarginMs: 0 };

  it('an interactive request waits behind at most one queued background request', async () => {
    limiters = new RateLimiters(fast);
    const { starts, before } = await overtake(limiters, 3);
    const first = starts.indexOf('i');
    expect(first - before).toBeLessThanOrEqual(1);
    // The three interactive ones go one after the other, before the rest of the background queue.
    expect(starts.slice(first, first + 3)).toEqual(['i', 'i', 'i']);
    expect(starts.filter((s) => s === 'b')).toHaveLength(12);
  });

  it('also when the shared budget, not the local pacing, is what requests wait for', async () => {
    // Two processes on one token, each paced locally at the full rate: together they wait on Redis, and
    // meanwhile the local reservoir fills up, which must not let background requests pile up past the queue.
    redis = await sharedRedis();
    limiters = new RateLimiters(fast, Date.now, redis);
    other = new RateLimiters(fast, Date.now, redis);
    const { starts, before } = await overtake(limiters, 5, flood(other, [], 'o', 12, 'background'));
    const first = starts.indexOf('i');
    expect(first - before).toBeLessThanOrEqual(1);
    expect(starts.slice(first, first + 3)).toEqual(['i', 'i', 'i']);
  });

  it('against the rate-limited simulator, an interactive page overtakes a saturated background queue', async () => {
    // At 2× real time a token every 500 ms: a margin that a machine running other tests beside it cannot eat
    // (at 4× it did once, at 10× it is 10 ms).
    const SCALE = 2;
    sim = await startSimulator({ users: 50, now: NOW, rateLimit: true, timeScale: SCALE, token: 'rw' });
    client = clientFor(sim, {
      limits: { general: { perMinute: 60 * SCALE, burst: 20 }, blockMs: 10_000 / SCALE, pauseMarginMs: 50 },
    });
    const day = (n: number) => `2026-09-${String(n).padStart(2, '0')}`;
    const page = (n: number, priority: Priority) =>
      client!.sender.call(client!.resolve(dauCount, { start_date: day(n), end_date: day(n) }), { priority });
    const background = Array.from({ length: 28 }, (_, i) => page(i + 1, 'background'));
    // The burst (19) goes at once; once it is spent, wait for one paced request to arrive, so nothing is in flight.
    while (sim.requests().length < 21) await new Promise((resolve) => setTimeout(resolve, 5));
    const issuedAt = Date.now();
    await page(30, 'interactive');
    await Promise.all(background);
    const log = [...sim.requests()].sort((a, b) => a.receivedAt - b.receivedAt);
    expect(log.filter((r) => r.status === 429)).toEqual([]);
    const interactive = log.findIndex((r) => r.query.start_date === day(30));
    const overtaken = log.slice(0, interactive).filter((r) => r.receivedAt > issuedAt);
    expect(overtaken.length).toBeLessThanOrEqual(1);
    expect(log.slice(interactive + 1).length).toBeGreaterThanOrEqual(5);
  });
});
