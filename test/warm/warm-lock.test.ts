import { randomBytes } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { configSchema } from '../../src/config/config.js';
import { createLogger } from '../../src/logger.js';
import { startSimulator, type Simulator } from '../../src/simulator/index.js';
import { connectRedis, type SharedRedis } from '../../src/upstream/limits/redis-connection.js';
import { WarmLock, credentialFingerprint, warmLockKey } from '../../src/warm/warm-lock.js';
import { parseWarmList } from '../../src/warm/warm-list.js';
import { SKIPPED, warmUp, type WarmTarget } from '../../src/warm/warm.js';
import { clientFor } from '../helpers/client.js';
import { NOW } from '../helpers/sim.js';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
/** 100 ms between requests: a warm-up of a few pages lasts long enough for a second warmer to meet its lock. */
const PACED = { general: { perMinute: 600, burst: 1 } };
const ITEMS = 'user-activity:last_30_days,dau-count:last_7_days';

let sim: Simulator;
const closing: Array<() => Promise<unknown>> = [];
const connections: SharedRedis[] = [];
beforeAll(async () => {
  sim = await startSimulator({ users: 300, now: NOW, rateLimit: false, token: 'lock' });
});
afterAll(() => sim.close());
afterEach(async () => {
  for (const close of closing.splice(0).reverse()) await close();
  for (const redis of connections.splice(0)) {
    if (redis.ready())
      for await (const keys of redis.client.scanIterator({ MATCH: `${redis.prefix}*` }))
        if (keys.length) await redis.client.del(keys);
    await redis.close();
  }
  sim.clearRequests();
});

async function connected(prefix: string): Promise<SharedRedis> {
  const redis = connectRedis(REDIS_URL, { prefix });
  connections.push(redis);
  for (let i = 0; i < 100 && !redis.ready(); i++) await new Promise((r) => setTimeout(r, 20));
  expect(redis.ready()).toBe(true);
  return redis;
}

/** A process of its own: its own client and (when given) its own Redis URL in config. */
function warmer(redisUrl?: string): WarmTarget {
  const client = clientFor(sim, { limits: PACED });
  closing.push(() => client.close());
  const config = configSchema.parse({ token: sim.token, baseUrl: sim.url, redisUrl });
  const log = createLogger(
    'error',
    (t) => t,
    () => {},
  );
  return { client, config, log, secrets: [sim.token] };
}

describe('one warmer at a time on a Redis', () => {
  it('of two warmers started together, one warms and the other skips; the lock is freed afterwards', async () => {
    const prefix = `test-warm-${randomBytes(6).toString('hex')}:`;
    const [a, b] = [await connected(prefix), await connected(prefix)];
    const outcomes = await Promise.all([
      warmUp(warmer(), parseWarmList(ITEMS), { redis: a }),
      warmUp(warmer(), parseWarmList(ITEMS), { redis: b }),
    ]);
    const ran = outcomes.filter((o) => o.ran);
    const skipped = outcomes.filter((o) => !o.ran);
    expect(ran).toHaveLength(1);
    expect(skipped).toEqual([{ ran: false, reason: SKIPPED }]);
    expect(ran[0]!.ran && ran[0]!.results.every((r) => !r.error && !r.fromCache)).toBe(true);
    // Only the warmer that ran sent requests: each page once.
    const pages = ran[0]!.ran ? ran[0]!.results.reduce((n, r) => n + r.pages, 0) : 0;
    expect(sim.requests().filter((r) => r.path.startsWith('/analytics/'))).toHaveLength(pages);

    expect(await a.client.exists(warmLockKey(a, credentialFingerprint(sim.token)))).toBe(0);
    const next = await warmUp(warmer(), parseWarmList('dau-count:last_7_days'), { redis: b });
    expect(next.ran).toBe(true);
  });

  it('a lock is released only by its holder, and another credential has its own', async () => {
    const redis = await connected(`test-warm-${randomBytes(6).toString('hex')}:`);
    const mine = await WarmLock.acquire(redis, 'fingerprint-a');
    expect(mine).not.toBeNull();
    expect(await WarmLock.acquire(redis, 'fingerprint-a')).toBeNull();
    const other = await WarmLock.acquire(redis, 'fingerprint-b');
    expect(other).not.toBeNull();

    // The lock expired and someone else took it: the old holder's release leaves theirs alone.
    await redis.client.set(warmLockKey(redis, 'fingerprint-a'), 'someone-else');
    await mine!.release();
    expect(await redis.client.get(warmLockKey(redis, 'fingerprint-a'))).toBe('someone-else');
    await other!.release();
    expect(await redis.client.exists(warmLockKey(redis, 'fingerprint-b'))).toBe(0);
  });

  it('warms without the lock, and says so, when the Redis of config.redisUrl is not there', async () => {
    const logs: string[] = [];
    // Nothing listens on port 1.
    const target = {
      ...warmer('redis://127.0.0.1:1'),
      log: createLogger(
        'warn',
        (t) => t,
        (l) => logs.push(l),
      ),
    };
    const away = await warmUp(target, parseWarmList('dau-count:last_7_days'));
    expect(away.ran && away.results.every((r) => !r.error && r.pages > 0)).toBe(true);
    expect(logs.join('')).toMatch(/Redis is not reachable: warming without the lock/);
  });
});
