import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, statSync, readdirSync, readFileSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../../src/simulator/index.js';
import type { AnalyticsClient } from '../../../src/upstream/client.js';
import { loadConfig } from '../../../src/config/config.js';
import { createRuntime } from '../../../src/runtime/runtime.js';
import { DiskStore } from '../../../src/upstream/cache/disk-store.js';
import { dauCount } from '../../../src/upstream/endpoints/dau-count.js';
import { userActivity } from '../../../src/upstream/endpoints/user-activity.js';
import { encodeAnswer } from '../../../src/upstream/cache/stored-answer.js';
import { clientFor, requestsTo } from '../../helpers/client.js';

let sim: Simulator;
let dir: string;
const clients: AnalyticsClient[] = [];
const warnings: string[] = [];
const log = { warn: (m: string) => warnings.push(m), debug: () => {} };

beforeAll(async () => {
  sim = await startSimulator({ users: 300, now: '2026-11-21T01:00:00Z', rateLimit: false, token: 'disk' });
});
afterAll(() => sim.close());
beforeEach(() => {
  dir = join(mkdtempSync(join(tmpdir(), 'oam-disk-')), 'cache');
  sim.configure({ now: '2026-11-21T01:00:00Z' });
  warnings.length = 0;
});
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  sim.clearRequests();
  rmSync(join(dir, '..'), { recursive: true, force: true });
});

/** A new client on the cache directory: a server process as it starts, with nothing in memory. */
function start(options: { maxBytes?: number } = {}): AnalyticsClient {
  const client = clientFor(sim, { cacheDir: dir, diskCacheMaxBytes: options.maxBytes, log });
  clients.push(client);
  return client;
}
const restart = async (client: AnalyticsClient) => {
  clients.splice(clients.indexOf(client), 1);
  await client.close();
  sim.clearRequests();
  return start();
};

const WEEK = { start_date: '2026-11-01', end_date: '2026-11-07' };
const MONTH = { start_date: '2026-10-01', end_date: '2026-10-31', page_size: 50 };

function walk(path: string): Array<{ path: string; dir: boolean; mode: number }> {
  const here = { path, dir: true, mode: statSync(path).mode & 0o777 };
  return [
    here,
    ...readdirSync(path, { withFileTypes: true }).flatMap((e) =>
      e.isDirectory()
        ? walk(join(path, e.name))
        : [{ path: join(path, e.name), dir: false, mode: statSync(join(path, e.name)).mode & 0o777 }],
    ),
  ];
}
const filesIn = (sub: string) => walk(join(dir, sub)).filter((f) => !f.dir);

describe('the disk cache', () => {
  it('serves a restarted server from disk, with no upstream request and the original fetch time', async () => {
    const first = start();
    const week = await first.list(dauCount, WEEK);
    const month = await first.list(userActivity, MONTH);
    expect(requestsTo(sim, 'user-activity').length).toBeGreaterThan(1);
    expect(week.data).toHaveLength(7);

    sim.configure({ now: '2026-11-21T01:30:00Z' });
    const second = await restart(first);
    const again = await second.list(dauCount, WEEK);
    const monthAgain = await second.list(userActivity, MONTH);
    expect(sim.requests()).toHaveLength(0);
    expect(again.data).toEqual(week.data);
    expect(monthAgain.data).toEqual(month.data);
    expect(again.freshness).toEqual({ ...week.freshness, from_cache: true, source: 'cache' });
    expect(again.freshness.fetched_at).toBe('2026-11-21T01:00:00.000Z');
  });

  it('creates its directory 0700 and every file in it 0600', async () => {
    const client = start();
    await client.list(dauCount, WEEK);
    await client.list(userActivity, MONTH);
    await client.cache.flush();
    const all = walk(dir);
    expect(all.filter((f) => !f.dir).length).toBeGreaterThan(4);
    for (const f of all)
      expect({ path: f.path, mode: f.mode.toString(8) }).toEqual({ path: f.path, mode: f.dir ? '700' : '600' });
  });

  it('honours the TTL by the injected clock: past the 03:00 refresh the disk entry is not served', async () => {
    const first = start();
    await first.list(dauCount, WEEK);
    sim.configure({ now: '2026-11-21T03:00:01Z' });
    const second = await restart(first);
    const answer = await second.list(dauCount, WEEK);
    expect(answer.freshness).toMatchObject({ from_cache: false, fetched_at: '2026-11-21T03:00:01.000Z' });
    expect(requestsTo(sim, 'dau-count')).toHaveLength(1);
  });

  const damages: Array<[string, () => void]> = [
    ['a truncated content file', () => filesIn('content-v2').forEach((f) => truncateSync(f.path, 10))],
    [
      'a content file with changed bytes',
      () =>
        filesIn('content-v2').forEach((f) => {
          const text = readFileSync(f.path, 'utf8');
          writeFileSync(f.path, text.replace(/"user_count":\d/g, '"user_count":9'));
        }),
    ],
    ['a garbled index', () => filesIn('index-v5').forEach((f) => writeFileSync(f.path, 'garbage\tnot json\n{'))],
    ['an emptied index', () => filesIn('index-v5').forEach((f) => truncateSync(f.path, 0))],
  ];
  for (const [what, damage] of damages) {
    it(`ignores ${what}: fetches again, never serves it, and stores a good copy`, async () => {
      const first = start();
      const original = await first.list(dauCount, WEEK);
      await first.cache.flush();
      damage();
      const second = await restart(first);
      const answer = await second.list(dauCount, WEEK);
      expect(answer.freshness.from_cache).toBe(false);
      expect(answer.data).toEqual(original.data);
      expect(requestsTo(sim, 'dau-count')).toHaveLength(1);
      const third = await restart(second);
      expect((await third.list(dauCount, WEEK)).freshness.from_cache).toBe(true);
      expect(sim.requests()).toHaveLength(0);
    });
  }

  it('stays within --cache-max-mb, dropping the least recently used entries first', async () => {
    const store = new DiskStore(dir, 100_000);
    const now = Date.parse('2026-11-21T01:00:00Z');
    const put = (i: number) => {
      const answer = {
        key: `k${i}`,
        value: { i, pad: 'x'.repeat(5000) },
        fetchedAt: now,
        nextRefreshAt: undefined,
        expiresAt: now + 3_600_000,
      };
      return store.set(answer, encodeAnswer(answer), now);
    };
    for (let i = 0; i < 60; i++) {
      await put(i);
      // k0 is read after every write, so it stays the most recently used entry.
      if (i > 0) expect(await store.get('k0', now)).toBeDefined();
    }
    await store.enforceBound(now);
    const bytes = walk(dir).reduce((sum, f) => sum + (f.dir ? 0 : statSync(f.path).size), 0);
    expect(bytes).toBeLessThanOrEqual(100_000);
    expect(await store.get('k0', now)).toBeDefined();
    expect(await store.get('k59', now)).toBeDefined();
    expect(await store.get('k1', now)).toBeUndefined();
    await store.close();
  });

  it('stays readable when two processes and this one write the same keys at once', async () => {
    const run = promisify(execFile);
    const writer = join(import.meta.dirname, 'disk-store-writer.ts');
    const here = new DiskStore(dir, 50 * 1024 * 1024, log);
    const now = Date.now();
    let childrenDone = false;
    const children = Promise.all([
      run(process.execPath, ['--import', 'tsx', writer, dir, 'a', '20']),
      run(process.execPath, ['--import', 'tsx', writer, dir, 'b', '20']),
    ]).finally(() => (childrenDone = true));
    // This process keeps writing the same keys for as long as the other two do.
    let rounds = 0;
    for (; !childrenDone || rounds < 5; rounds++)
      await Promise.all(
        Array.from({ length: 20 }, (_, i) => {
          const answer = {
            key: `key-${i}`,
            value: { i, writer: 'test', round: rounds },
            fetchedAt: now,
            nextRefreshAt: undefined,
            expiresAt: now + 3_600_000,
          };
          return here.set(answer, encodeAnswer(answer), now);
        }),
      );
    await children;
    expect(rounds).toBeGreaterThan(5);
    const reader = new DiskStore(dir, 50 * 1024 * 1024, log);
    for (let i = 0; i < 20; i++) {
      const hit = await reader.get(`key-${i}`, now);
      expect(hit?.value).toMatchObject({ i });
      expect(['a', 'b', 'test']).toContain((hit?.value as { writer: string }).writer);
    }
    expect(warnings).toEqual([]);
    for (const f of walk(dir)) expect(f.mode).toBe(f.dir ? 0o700 : 0o600);
    await Promise.all([here.close(), reader.close()]);
  }, 60_000);

  it('is not used without a directory: a client without cacheDir writes nothing to disk', async () => {
    const client = clientFor(sim);
    clients.push(client);
    await client.list(dauCount, WEEK);
    await client.cache.flush();
    expect(() => statSync(dir)).toThrow();
  });

  it('is where --cache-dir says in a server runtime, and off with none', async () => {
    const env = {
      ANALYTICS_API_TOKEN: sim.token,
      ANALYTICS_BASE_URL: sim.url,
      ANALYTICS_LOG_LEVEL: 'error',
      // The cache itself is under test: with a history store the second answer would come from there.
      ANALYTICS_HISTORY: 'none',
    };
    // The runtime's client reads the real clock: a range long past is valid by it and by the simulator's.
    const runtime = (cacheDir: string) => createRuntime(loadConfig(['--cache-dir', cacheDir], env));
    const q = { start_date: '2025-01-01', end_date: '2025-01-07' };
    const first = await runtime(dir);
    await first.client.list(dauCount, q);
    await first.close();
    const second = await runtime(dir);
    expect((await second.client.list(dauCount, q)).freshness.from_cache).toBe(true);
    await second.close();
    expect(requestsTo(sim, 'dau-count')).toHaveLength(1);
    for (const f of walk(dir)) expect(f.mode).toBe(f.dir ? 0o700 : 0o600);

    // With none, the entry on disk is not seen: the answer comes from the upstream again.
    const third = await runtime('none');
    await third.client.list(dauCount, q);
    await third.close();
    expect(requestsTo(sim, 'dau-count')).toHaveLength(2);
  });
});
