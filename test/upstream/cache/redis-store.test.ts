import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { loadConfig } from '../../../src/config/config.js';
import { createRuntime } from '../../../src/runtime/runtime.js';
import { startSimulator, type Simulator } from '../../../src/simulator/index.js';
import type { AnalyticsClient } from '../../../src/upstream/client.js';
import { dailyUsage } from '../../../src/upstream/endpoints/daily-usage.js';
import { dauCount } from '../../../src/upstream/endpoints/dau-count.js';
import { userActivity } from '../../../src/upstream/endpoints/user-activity.js';
import { connectRedis, type SharedRedis } from '../../../src/upstream/limits/redis-connection.js';
import { clientFor, requestsTo } from '../../helpers/client.js';
import { freePort, startRedisServer, stopRedisServer } from '../../helpers/redis-server.js';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const WEEK = { start_date: '2026-11-01', end_date: '2026-11-07' };
const MONTH = { start_date: '2026-10-01', end_date: '2026-10-31', page_size: 50 };

let sim: Simulator;
const clients: AnalyticsClient[] = [];
const connections: SharedRedis[] = [];
const dirs: string[] = [];

beforeAll(async () => {
  sim = await startSimulator({ users: 300, now: '2026-11-21T01:00:00Z', rateLimit: false, token: 'redis' });
});
afterAll(() => sim.close());
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  for (const redis of connections.splice(0)) {
    // A test's own Redis may have just been stopped, though the socket has not noticed yet: nothing to clean there.
    await removeKeys(redis).catch(() => {});
    await redis.close();
  }
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  sim.clearRequests();
});

async function removeKeys(redis: SharedRedis): Promise<void> {
  if (!redis.ready()) return;
  for await (const keys of redis.client.scanIterator({ MATCH: `${redis.prefix}*` }))
    if (keys.length) await redis.client.del(keys);
}

async function until(check: () => boolean | Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** A server process: its own Redis connection (the same prefix for all of one test) and, if asked, a disk cache. */
async function server(url: string, prefix: string, cacheDir?: string): Promise<AnalyticsClient> {
  const redis = connectRedis(url, { prefix });
  connections.push(redis);
  await until(() => redis.ready(), 'Redis');
  const client = clientFor(sim, { redis, cacheDir });
  clients.push(client);
  return client;
}
const newPrefix = () => `oam-test-${randomBytes(6).toString('hex')}:`;

describe('the Redis-shared cache', () => {
  it('makes a page one process fetched a hit for another, with its original fetch time', async () => {
    const prefix = newPrefix();
    const a = await server(REDIS_URL, prefix);
    const b = await server(REDIS_URL, prefix);
    const first = await a.list(userActivity, MONTH);
    await a.cache.flush();
    const pages = requestsTo(sim, 'user-activity').length;
    expect(pages).toBeGreaterThan(1);
    sim.configure({ now: '2026-11-21T01:20:00Z' });
    const second = await b.list(userActivity, MONTH);
    expect(requestsTo(sim, 'user-activity')).toHaveLength(pages);
    expect(second.data).toEqual(first.data);
    expect(second.freshness).toEqual({ ...first.freshness, from_cache: true, source: 'cache' });
    expect(a.redis).toBeDefined();
    sim.configure({ now: '2026-11-21T01:00:00Z' });
  });

  it('goes memory, Redis, disk, upstream: a disk hit is shared through Redis, and the disk serves without Redis', async () => {
    const prefix = newPrefix();
    const dir = mkdtempSync(join(tmpdir(), 'oam-redis-disk-'));
    dirs.push(dir);
    const onlyDisk = clientFor(sim, { cacheDir: dir });
    clients.push(onlyDisk);
    await onlyDisk.list(dauCount, WEEK);
    await onlyDisk.cache.flush();
    const both = await server(REDIS_URL, prefix, dir);
    expect((await both.list(dauCount, WEEK)).freshness.from_cache).toBe(true);
    await both.cache.flush();
    const onlyRedis = await server(REDIS_URL, prefix);
    expect((await onlyRedis.list(dauCount, WEEK)).freshness.from_cache).toBe(true);
    expect(requestsTo(sim, 'dau-count')).toHaveLength(1);
  });

  it('answers while Redis is down from the start', async () => {
    const port = await freePort();
    const redis = connectRedis(`redis://127.0.0.1:${port}`, { prefix: newPrefix(), onError: () => {} });
    connections.push(redis);
    const client = clientFor(sim, { redis });
    clients.push(client);
    expect((await client.list(dauCount, WEEK)).freshness.from_cache).toBe(false);
    expect((await client.list(dauCount, WEEK)).freshness.from_cache).toBe(true);
  });

  it('keeps answering while Redis restarts, and shares new entries again once it is back', async () => {
    const port = await freePort();
    const url = `redis://127.0.0.1:${port}`;
    const prefix = newPrefix();
    let redisServer = await startRedisServer(port);
    try {
      const a = await server(url, prefix);
      const b = await server(url, prefix);
      await a.list(dauCount, WEEK);
      await a.cache.flush();
      await b.list(dauCount, WEEK);
      expect(requestsTo(sim, 'dau-count')).toHaveLength(1);

      await stopRedisServer(redisServer);
      await until(() => !a.redis!.ready() && !b.redis!.ready(), 'the clients to see Redis gone');
      const q = { start_date: '2026-11-10', end_date: '2026-11-12' };
      expect((await a.list(dailyUsage, q)).freshness.from_cache).toBe(false);
      expect((await b.list(dailyUsage, q)).freshness.from_cache).toBe(false);
      expect((await a.list(dauCount, WEEK)).freshness.from_cache).toBe(true);
      expect(requestsTo(sim, 'daily-usage')).toHaveLength(2);

      redisServer = await startRedisServer(port);
      await until(() => a.redis!.ready() && b.redis!.ready(), 'the clients to reconnect');
      const later = { start_date: '2026-11-13', end_date: '2026-11-14' };
      await a.list(dailyUsage, later);
      await a.cache.flush();
      expect((await b.list(dailyUsage, later)).freshness.from_cache).toBe(true);
      expect(requestsTo(sim, 'daily-usage')).toHaveLength(3);
    } finally {
      await stopRedisServer(redisServer);
    }
  }, 30_000);

  it('answers when Redis hangs: a command that does not answer in time is a miss', async () => {
    const port = await freePort();
    const redisServer = await startRedisServer(port);
    try {
      const client = await server(`redis://127.0.0.1:${port}`, newPrefix());
      redisServer.kill('SIGSTOP');
      const answer = await client.list(dauCount, WEEK);
      expect(answer.freshness.from_cache).toBe(false);
      await client.cache.flush();
    } finally {
      redisServer.kill('SIGCONT');
      await stopRedisServer(redisServer);
    }
  }, 30_000);

  it('is connected by the runtime from --redis-url, which warns once per outage and closes it', async () => {
    const port = await freePort();
    const env = { ANALYTICS_API_TOKEN: sim.token, ANALYTICS_BASE_URL: sim.url, ANALYTICS_LOG_LEVEL: 'warn' };
    const lines: string[] = [];
    const spy = vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => {
      lines.push(String(chunk));
      return true;
    });
    try {
      const runtime = await createRuntime(
        loadConfig(['--redis-url', `redis://127.0.0.1:${port}`, '--cache-dir', 'none'], env),
      );
      const redis = runtime.client.redis!;
      expect(redis).toBeDefined();
      for (let i = 0; i < 3; i++)
        await runtime.client.list(dauCount, { start_date: '2025-02-01', end_date: '2025-02-0' + (i + 1) });
      // Several reconnection attempts fail meanwhile (after 100, 200, 400 ms, ...).
      await new Promise((r) => setTimeout(r, 1_000));
      expect(lines.filter((l) => l.includes('Redis is unreachable'))).toHaveLength(1);
      await runtime.close();
      expect(redis.client.isOpen).toBe(false);
    } finally {
      spy.mockRestore();
    }
  });
});
