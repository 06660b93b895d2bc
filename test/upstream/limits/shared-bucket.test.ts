import type { ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { RATE_LIMITS } from '../../../src/contract/limits.js';
import { startSimulator, type RequestLogEntry, type Simulator } from '../../../src/simulator/index.js';
import { dauCount } from '../../../src/upstream/endpoints/dau-count.js';
import { userActivity } from '../../../src/upstream/endpoints/user-activity.js';
import { connectRedis, type SharedRedis } from '../../../src/upstream/limits/redis-connection.js';
import { NOW } from '../../helpers/sim.js';
import { clientFor } from '../../helpers/client.js';
import { freePort, startRedisServer, stopRedisServer } from '../../helpers/redis-server.js';
import type { AnalyticsClient } from '../../../src/upstream/client.js';
import { DEFAULT_LIMITS } from '../../../src/upstream/limits/limits-config.js';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
/** The documented limits ten times faster, on the simulator and in both buckets (local and shared). */
const SCALE = 10;
const LIMITS = {
  ...DEFAULT_LIMITS,
  general: { perMinute: 60 * SCALE, burst: 20 },
  'credit-usage': { perMinute: 30 * SCALE, burst: 10 },
  'cost-analytics': { perMinute: 30 * SCALE, burst: 10 },
  blockMs: 10_000 / SCALE,
  pauseMarginMs: 50,
};

const cleanup: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step().catch(() => {});
});

/** One server process: its own client, with the rate limits (and the cache) shared through `redis`. */
function processOn(sim: Simulator, redis: SharedRedis): AnalyticsClient {
  const client = clientFor(sim, { limits: LIMITS, redis });
  cleanup.push(() => client.close());
  return client;
}

async function redisAt(url: string): Promise<SharedRedis> {
  const redis = connectRedis(url, { prefix: `test-shared-${randomBytes(6).toString('hex')}:` });
  cleanup.push(async () => {
    if (redis.ready()) {
      const keys = await redis.client.keys(`${redis.prefix}*`);
      if (keys.length) await redis.client.del(keys);
    }
    await redis.close();
  });
  while (!redis.ready()) await new Promise((resolve) => setTimeout(resolve, 10));
  return redis;
}

async function simulator(rateLimit: boolean): Promise<Simulator> {
  const sim = await startSimulator({ users: 6000, now: NOW, rateLimit, timeScale: SCALE, token: 'rw' });
  cleanup.push(() => sim.close());
  return sim;
}

/** Replays arrivals through the documented bucket (scaled): the most it is ever overdrawn, in tokens. */
function overdraft(log: RequestLogEntry[], perMinute: number, burst: number): number {
  let tokens = burst;
  let last = log[0]?.receivedAt ?? 0;
  let worst = 0;
  for (const r of [...log].sort((a, b) => a.receivedAt - b.receivedAt)) {
    tokens = Math.min(burst, tokens + ((r.receivedAt - last) * perMinute) / 60_000) - 1;
    last = r.receivedAt;
    worst = Math.max(worst, -tokens);
  }
  return worst;
}

const day = (n: number) => new Date(Date.UTC(2026, 0, 1) + n * 86_400_000).toISOString().slice(0, 10);

describe('rate limits shared through Redis', () => {
  it('two processes on one token page together within the documented rate, without a 429', async () => {
    const sim = await simulator(true);
    const redis = await redisAt(REDIS_URL);
    const [a, b] = [processOn(sim, redis), processOn(sim, redis)];
    // Each alone would send its whole burst at once; together that would be twice the upstream's.
    // Different ranges, so that neither finds the other's pages in the shared cache.
    const pages = await Promise.all(
      [a, b].map((p, i) =>
        p.list(userActivity, { range: i ? 'last_30_days' : 'last_90_days' }, { caps: { maxPages: 25 } }),
      ),
    );
    expect(pages.map((p) => p.pages)).toEqual([25, 25]);
    const log = sim.requests();
    expect(log).toHaveLength(50);
    expect(log.filter((r) => r.status === 429)).toEqual([]);
    const { perMinute, burst } = RATE_LIMITS.general;
    expect(overdraft(log, perMinute * SCALE, burst)).toBeLessThanOrEqual(0);
  });

  it('a 429 seen by one process pauses the other', async () => {
    const sim = await simulator(false);
    const redis = await redisAt(REDIS_URL);
    const [a, b] = [processOn(sim, redis), processOn(sim, redis)];
    sim.injectFault({ path: '/analytics/v0/dau-count', kind: '429', count: 1 });
    const first = a.list(dauCount, { start_date: day(1), end_date: day(1) });
    // Once A has taken in its 429 (the pause is in Redis), B sends nothing of the group until the block is over.
    while ((await redis.client.keys(`${redis.prefix}pause:*`)).length === 0)
      await new Promise((resolve) => setTimeout(resolve, 2));
    await b.list(dauCount, { start_date: day(2), end_date: day(2) });
    await first;
    const log = sim.requests();
    const blockedAt = log.find((r) => r.status === 429)!.receivedAt;
    const fromB = log.find((r) => r.query.start_date === day(2))!;
    expect(fromB.status).toBe(200);
    expect(fromB.receivedAt - blockedAt).toBeGreaterThanOrEqual(LIMITS.blockMs);
  });

  it('keeps answering when Redis goes away mid-run, within a conservative share, and returns to it', async () => {
    const sim = await simulator(true);
    const port = await freePort();
    let server = await redisServer(port);
    const redis = await redisAt(`redis://127.0.0.1:${port}`);
    const [a, b] = [processOn(sim, redis), processOn(sim, redis)];
    let stop = false;
    const page = async (p: typeof a, n: number) => {
      await p.list(dauCount, { start_date: day(n), end_date: day(n) });
    };
    const run = async (p: typeof a, first: number) => {
      for (let n = first; !stop; n += 2) await page(p, n);
    };
    const sent = (count: number) => until(() => sim.requests().length >= count);
    const runs = Promise.all([run(a, 0), run(b, 1)]);

    await sent(25);
    expect([a, b].map((p) => p.limiters.shared!.degraded)).toEqual([false, false]);
    server.kill('SIGKILL');
    await until(() => !redis.ready());
    const atOutage = sim.requests().length;
    await sent(atOutage + 6);
    expect([a, b].map((p) => p.limiters.shared!.degraded)).toEqual([true, true]);
    // A restart loses every key (no persistence): the buckets start again, capped by what each process has left.
    server = await redisServer(port);
    await until(() => [a, b].every((p) => !p.limiters.shared!.degraded));
    await sent(sim.requests().length + 6);
    stop = true;
    await runs;

    expect(await redis.client.keys(`${redis.prefix}bucket:*`)).toEqual([
      `${redis.prefix}bucket:${fingerprint}:general`,
    ]);
    const log = sim.requests();
    expect(log.filter((r) => r.status !== 200)).toEqual([]);
    const { perMinute, burst } = RATE_LIMITS.general;
    expect(overdraft(log, perMinute * SCALE, burst)).toBeLessThanOrEqual(0);
  });

  it('keeps answering when Redis hangs: a take without an answer in time falls back to the local share', async () => {
    const sim = await simulator(true);
    const port = await freePort();
    const server = await redisServer(port);
    const redis = await redisAt(`redis://127.0.0.1:${port}`);
    const p = processOn(sim, redis);
    await p.list(dauCount, { start_date: day(0), end_date: day(0) });
    expect(p.limiters.shared!.degraded).toBe(false);
    // Paused, Redis keeps the connection open and answers nothing: node-redis would wait for ever.
    server.kill('SIGSTOP');
    try {
      const started = Date.now();
      const answer = await p.list(dauCount, { start_date: day(1), end_date: day(1) });
      expect(answer.freshness.from_cache).toBe(false);
      expect(p.limiters.shared!.degraded).toBe(true);
      expect(Date.now() - started).toBeLessThan(5_000);
    } finally {
      server.kill('SIGCONT');
    }
  }, 20_000);
});

/** sha256 of the simulator token 'rw', as the caller computes it: the shared bucket's name. */
const fingerprint = createHash('sha256').update('rw').digest('hex').slice(0, 16);

async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 5));
}

/** A throwaway Redis, killed by the test itself or at cleanup. */
async function redisServer(port: number): Promise<ChildProcess> {
  const child = await startRedisServer(port);
  cleanup.push(() => stopRedisServer(child));
  return child;
}
