import { afterEach, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../src/simulator/index.js';
import type { AnalyticsClient } from '../../src/upstream/client.js';
import { RateLimiters } from '../../src/upstream/limits/limiter.js';
import { DEFAULT_LIMITS } from '../../src/upstream/limits/limits-config.js';
import { NOW } from '../helpers/sim.js';
import { clientFor, requestsTo } from '../helpers/client.js';
import { costAnalytics } from '../../src/upstream/endpoints/cost-analytics.js';
import { creditUsageByUser } from '../../src/upstream/endpoints/credit-usage-by-user.js';
import { dauCount } from '../../src/upstream/endpoints/dau-count.js';
import { userActivity } from '../../src/upstream/endpoints/user-activity.js';

/** The documented limits run ten times faster on both sides, so the tests take seconds, not minutes. */
const SCALE = 10;
const SCALED = {
  general: { perMinute: 60 * SCALE, burst: 20 },
  'credit-usage': { perMinute: 30 * SCALE, burst: 10 },
  'cost-analytics': { perMinute: 30 * SCALE, burst: 10 },
  blockMs: 10_000 / SCALE,
  pauseMarginMs: 50,
};

let sim: Simulator | undefined;
let client: AnalyticsClient | undefined;
afterEach(async () => {
  await client?.close();
  await sim?.close();
});

describe('the limiter on its own', () => {
  it('lets the burst (less one safety token) through at once, then one per interval, and keeps refilling after a pause', async () => {
    // One token per 100 ms: wide enough that a busy machine cannot blur the burst into the refill.
    const limiters = new RateLimiters({ ...DEFAULT_LIMITS, general: { perMinute: 600, burst: 5 }, pauseMarginMs: 0 });
    const t0 = Date.now();
    const times: number[] = [];
    await Promise.all(
      Array.from({ length: 7 }, () => limiters.schedule('general', async () => void times.push(Date.now() - t0))),
    );
    // From the first start, not from t0: a busy worker may start the first one late, but not the burst apart.
    const first = times[0]!;
    expect(times.filter((t) => t - first < 80)).toHaveLength(4);
    expect(times.at(-1)! - first).toBeGreaterThanOrEqual(3 * 100 - 10);
    const pausedAt = Date.now();
    await limiters.pause('general', 300);
    const after: number[] = [];
    await Promise.all(
      Array.from({ length: 3 }, () => limiters.schedule('general', async () => void after.push(Date.now() - pausedAt))),
    );
    expect(Math.min(...after)).toBeGreaterThanOrEqual(295);
    // Refill still runs after the pause: the three go out one interval apart (not all at once, not never).
    const spread = Math.max(...after) - Math.min(...after);
    expect(spread).toBeGreaterThanOrEqual(190);
    expect(spread).toBeLessThan(400);
    await limiters.stop();
  });

  it('keeps groups apart', async () => {
    const limiters = new RateLimiters({ ...DEFAULT_LIMITS, pauseMarginMs: 0 });
    await limiters.pause('general', 5_000);
    const t0 = Date.now();
    await limiters.schedule('cost-analytics', async () => undefined);
    expect(Date.now() - t0).toBeLessThan(100);
    await limiters.stop();
  });
});

describe('against the simulator with its limits enforced', () => {
  it('fetches 50 pages of user-activity without a single 429', async () => {
    sim = await startSimulator({ users: 6000, now: NOW, rateLimit: true, timeScale: SCALE, token: 'rw' });
    client = clientFor(sim, { limits: SCALED });
    const answer = await client.list(userActivity, { range: 'last_90_days' }, { caps: { maxPages: 50 } });
    expect(answer.pages).toBe(50);
    expect(answer.truncated).toBe(true);
    const log = requestsTo(sim, 'user-activity');
    expect(log).toHaveLength(50);
    expect(log.filter((r) => r.status === 429)).toEqual([]);
  });

  it('shares the buckets between concurrent callers of every group, still without a 429', async () => {
    sim = await startSimulator({ users: 50, now: NOW, rateLimit: true, timeScale: SCALE, token: 'rw' });
    client = clientFor(sim, { limits: SCALED });
    const day = (n: number) => `2026-10-${String(n).padStart(2, '0')}`;
    await Promise.all([
      ...Array.from({ length: 30 }, (_, i) => client!.list(dauCount, { start_date: day(i + 1), end_date: day(i + 1) })),
      ...Array.from({ length: 15 }, (_, i) =>
        client!.list(creditUsageByUser, { start_date: day(i + 1), end_date: day(i + 1) }),
      ),
      ...Array.from({ length: 15 }, (_, i) =>
        client!.list(costAnalytics, { start_date: day(i + 1), end_date: day(i + 1) }),
      ),
    ]);
    expect(sim.requests()).toHaveLength(60);
    expect(sim.requests().filter((r) => r.status === 429)).toEqual([]);
  });

  it('rides out a 429 storm: the group pauses, nothing is sent meanwhile, and every retry goes through the bucket', async () => {
    sim = await startSimulator({ users: 50, now: NOW, rateLimit: false, token: 'rw' });
    client = clientFor(sim, { limits: SCALED });
    sim.injectFault({ path: '*', kind: '429', count: 3 });
    const day = (n: number) => `2026-10-${String(n).padStart(2, '0')}`;
    const answers = await Promise.all(
      Array.from({ length: 6 }, (_, i) => client!.list(dauCount, { start_date: day(i + 1), end_date: day(i + 1) })),
    );
    expect(answers.every((a) => a.data.length === 1)).toBe(true);
    const log = sim.requests();
    const limited = log.filter((r) => r.status === 429);
    expect(limited).toHaveLength(3);
    const firstBlock = Math.min(...limited.map((r) => r.receivedAt));
    const resumed = log.filter((r) => r.status === 200);
    expect(resumed).toHaveLength(6);
    // Requests already in flight land within a few ms; after that nothing of the group is sent until
    // the block (1 s here) has passed; then the three retries (and anything that queued) go out.
    const quiet = log.filter((r) => r.receivedAt > firstBlock + 100 && r.receivedAt < firstBlock + SCALED.blockMs);
    expect(quiet).toEqual([]);
    expect(log.filter((r) => r.receivedAt >= firstBlock + SCALED.blockMs).length).toBeGreaterThanOrEqual(3);
  });

  it('honours Retry-After when the upstream sends one', async () => {
    sim = await startSimulator({ users: 20, now: NOW, rateLimit: false, token: 'rw' });
    client = clientFor(sim, { limits: { ...SCALED, blockMs: 60_000 } });
    sim.injectFault({ path: '/analytics/v0/dau-count', kind: '429', retryAfterSeconds: 1 });
    const t0 = Date.now();
    await client.list(dauCount, {});
    const elapsed = Date.now() - t0;
    expect(elapsed).toBeGreaterThanOrEqual(1_000);
    expect(elapsed).toBeLessThan(10_000);
  });

  it('gives up with RateLimited, saying when, once the retries are spent', async () => {
    sim = await startSimulator({ users: 20, now: NOW, rateLimit: false, token: 'rw' });
    client = clientFor(sim, { limits: { ...SCALED, blockMs: 100 }, retry: { maxRateLimitRetries: 1 } });
    sim.injectFault({ path: '/analytics/v0/dau-count', kind: '429', count: 5 });
    await expect(client.list(dauCount, {})).rejects.toThrow(
      /rate limit for dau-count is exhausted; requests are blocked until about \d{4}-/,
    );
    expect(requestsTo(sim, 'dau-count')).toHaveLength(2);
  });
});
