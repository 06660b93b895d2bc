import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { attachHistory } from '../../../src/history/serving/runtime-history.js';
import { syncOnce } from '../../../src/history/sync/sync-run.js';
import { createLogger } from '../../../src/logger.js';
import { startSimulator, type Simulator } from '../../../src/simulator/index.js';
import { userActivity } from '../../../src/upstream/endpoints/user-activity.js';
import { clientFor } from '../../helpers/client.js';
import { NOW } from '../../helpers/sim.js';

const SETTINGS = { historyDays: 3, historyMonths: 0, syncShare: 1 };
const UA = '/analytics/v0/user-activity';
const quiet = createLogger(
  'error',
  (t) => t,
  () => {},
);

/**
 * A page the client refuses is never stored, and its day is fetched again by the next sync. The simulator
 * has a fault for a body that is not JSON ('malformed'), but none for JSON of the wrong shape: a proxy in
 * front of it rewrites one page for that.
 */
describe('a page that fails its schema is not stored, and fetched again next time', () => {
  let sim: Simulator;
  let proxy: Server;
  let proxyUrl: string;
  let dir: string;
  /** Rewrites the n-th user-activity request's answer (1-based) so that `users` is not a list; 0: none. */
  let corrupt = 0;
  let seen = 0;

  beforeAll(async () => {
    // 300 people: a day of user activity is 3 pages, so the bad one is the middle of a day.
    sim = await startSimulator({ users: 300, now: NOW, rateLimit: false, token: 'bad-page-token' });
    dir = mkdtempSync(join(tmpdir(), 'sync-bad-page-'));
    proxy = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', async () => {
        const upstream = await fetch(new URL(req.url!, sim.url), {
          method: req.method,
          headers: { authorization: String(req.headers.authorization), 'content-type': 'application/json' },
          body: req.method === 'POST' ? Buffer.concat(chunks) : undefined,
        });
        let text = await upstream.text();
        if (new URL(req.url!, sim.url).pathname === UA && ++seen === corrupt)
          text = JSON.stringify({ ...JSON.parse(text), users: 'not a list' });
        res.writeHead(upstream.status, { 'content-type': 'application/json' }).end(text);
      });
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    proxy?.closeAllConnections();
    await new Promise((resolve) => proxy?.close(resolve));
    await sim?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it.each([
    ['a body that is not JSON (the simulator fault)', 'malformed', /not valid JSON/],
    ['JSON of the wrong shape (rewritten by a proxy)', 'shape', /unexpected shape: users/],
  ] as const)('%s', async (name, how, message) => {
    seen = 0;
    corrupt = how === 'shape' ? 2 : 0;
    if (how === 'malformed') sim.injectFault({ path: UA, kind: 'malformed', skip: 1 });
    const client = clientFor(sim, { baseUrl: proxyUrl });
    const history = (await attachHistory(
      client,
      { history: join(dir, `${how}.sqlite`), cacheDir: undefined, demo: false },
      quiet,
    ))!;
    const store = history.source.store;
    try {
      sim.clearRequests();
      const first = await syncOnce(client, history.source, SETTINGS, {});
      // The second request of user activity was page 2 of the newest day: that day failed, as a whole.
      const bad = sim.requests().filter((r) => r.path === UA)[1]!;
      expect(bad.query.cursor, name).toBeTruthy();
      const day = Date.parse(`${bad.query.start_date}T00:00:00Z`) / 86_400_000;
      expect(first.ran && first.result.failed).toEqual([
        {
          dataset: 'user-activity',
          days: `${bad.query.start_date}..${bad.query.end_date}`,
          error: expect.stringMatching(message),
        },
      ]);
      expect(await store.blocks('user-activity', day, day)).toEqual([]);
      expect(await store.rows('user-activity', day, day)).toEqual([]);
      // The other days are in.
      expect((await store.blocks('user-activity', day - 2, day - 1)).length).toBe(2);

      // The next sync asks for that day again, and for nothing else.
      sim.clearRequests();
      const second = await syncOnce(client, history.source, SETTINGS, {});
      expect(second.ran && second.result.failed).toEqual([]);
      const asked = new Set(sim.requests().map((r) => `${r.path} ${r.query.start_date}..${r.query.end_date}`));
      expect([...asked]).toEqual([`${UA} ${bad.query.start_date}..${bad.query.end_date}`]);
      const [block] = await store.blocks('user-activity', day, day);
      expect((await store.rows('user-activity', day, day)).length).toBe(block!.rows);

      // Answered from the store now, as the upstream answers it.
      const stored = await client.list(userActivity, {
        start_date: bad.query.start_date!,
        end_date: bad.query.end_date!,
      });
      expect(stored.freshness.source).toBe('history');
    } finally {
      sim.clearFaults();
      corrupt = 0;
      await history.close();
      await client.close();
    }
  });

  it('a live answer with a bad page fails the call and keeps nothing (passive fill)', async () => {
    seen = 0;
    corrupt = 2;
    const client = clientFor(sim, { baseUrl: proxyUrl });
    const history = (await attachHistory(
      client,
      { history: join(dir, 'live.sqlite'), cacheDir: undefined, demo: false },
      quiet,
    ))!;
    try {
      await expect(client.list(userActivity, { start_date: '2026-11-18', end_date: '2026-11-18' })).rejects.toThrow(
        /unexpected shape: users/,
      );
      expect(await history.source.store.db.selectFrom('history_blocks').selectAll().execute()).toEqual([]);
    } finally {
      corrupt = 0;
      await history.close();
      await client.close();
    }
  });
});
