import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { attachHistory, type RuntimeHistory } from '../../../src/history/serving/runtime-history.js';
import { syncOnce } from '../../../src/history/sync/sync-run.js';
import { createLogger } from '../../../src/logger.js';
import { startSimulator, type Simulator } from '../../../src/simulator/index.js';
import type { AnalyticsClient } from '../../../src/upstream/client.js';
import { clientFor } from '../../helpers/client.js';

// Needs `npm run build` first: a syncer is killed with SIGKILL while it holds the lock.
const CLI = fileURLToPath(new URL('../../../dist/cli.js', import.meta.url));
const PG_URL = 'postgres://postgres@127.0.0.1:5432/postgres';
const SETTINGS = { historyDays: 2, historyMonths: 0, syncShare: 1 };
const quiet = createLogger(
  'error',
  (t) => t,
  () => {},
);
const until = async (what: () => Promise<boolean>, ms = 15_000) => {
  for (const end = Date.now() + ms; Date.now() < end; await new Promise((r) => setTimeout(r, 50)))
    if (await what()) return;
  throw new Error('waited in vain');
};

describe('one syncer per store (SQLite, simulator over HTTP)', () => {
  let sim: Simulator;
  let dir: string;
  const schemas = new Set<string>();
  const opened: Array<{ client: AnalyticsClient; history: RuntimeHistory }> = [];
  /** A client and its own connection to the store: as a second server process would have. */
  const open = async (path: string) => {
    const client = clientFor(sim);
    const history = (await attachHistory(client, { history: path, cacheDir: undefined, demo: false }, quiet))!;
    opened.push({ client, history });
    return { client, history, store: history.source.store };
  };

  beforeAll(async () => {
    // Real time: a child process syncs against it too.
    // A token of its own: the PostgreSQL schema is named after it, so no other run shares it.
    sim = await startSimulator({ users: 40, rateLimit: false, token: `lock-${randomUUID()}` });
    dir = mkdtempSync(join(tmpdir(), 'sync-lock-'));
  });
  afterAll(async () => {
    for (const { client, history } of opened) {
      await history.close();
      await client.close();
    }
    await sim?.close();
    rmSync(dir, { recursive: true, force: true });
    if (schemas.size === 0) return;
    const admin = new pg.Client({ connectionString: PG_URL });
    await admin.connect();
    for (const schema of schemas) await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await admin.end();
  });

  it('a second sync while the first holds the lock does not run, and names the holder', async () => {
    const path = join(dir, 'busy.sqlite');
    const first = await open(path);
    const second = await open(path);
    // The first sync hangs on its first request, holding the lock.
    sim.injectFault({ path: '*', kind: 'hang', count: 1000 });
    const controller = new AbortController();
    const running = syncOnce(first.client, first.history.source, SETTINGS, { signal: controller.signal });
    try {
      // One request of each rate group is on its way (and hangs) before the second sync is asked.
      await until(async () => sim.requests().length === 3);
      const refused = await syncOnce(second.client, second.history.source, SETTINGS, {});
      expect(refused).toEqual({
        ran: false,
        reason: `another sync holds the store (pid ${process.pid} on ${hostname()}); nothing to do`,
      });
      // It sent nothing.
      expect(sim.requests().length).toBe(3);
    } finally {
      controller.abort();
      sim.clearFaults();
    }
    expect((await running).ran).toBe(true);
    // Released: the next one runs.
    expect(await first.store.db.selectFrom('history_lock').selectAll().execute()).toEqual([]);
    const next = await syncOnce(second.client, second.history.source, SETTINGS, {});
    expect(next.ran && next.result.failed).toEqual([]);
  });

  it.each(['sqlite', 'postgres'] as const)(
    'several syncers starting at once on their own connections (%s): exactly one runs, the others name it',
    async (engine) => {
      const where = engine === 'sqlite' ? join(dir, 'race.sqlite') : PG_URL;
      // Opened one after the other (opening a new file from several connections at once is another matter).
      const all = [await open(where), await open(where), await open(where), await open(where)];
      if (engine === 'postgres') schemas.add(`org_analytics_${all[0]!.client.sender.credential}`);
      const outcomes = await Promise.all(all.map((o) => syncOnce(o.client, o.history.source, SETTINGS, {})));
      expect(outcomes.filter((o) => o.ran).length).toBe(1);
      for (const o of outcomes.filter((o) => !o.ran))
        expect(o.ran === false && o.reason).toBe(
          `another sync holds the store (pid ${process.pid} on ${hostname()}); nothing to do`,
        );
    },
  );

  it('a holder elsewhere is waited for while it beats, and taken over once its beat is 30 s old', async () => {
    const { client, history, store } = await open(join(dir, 'elsewhere.sqlite'));
    const holder = { name: 'sync', holder: 'other', host: 'elsewhere.example', pid: 4242 };
    await store.db
      .insertInto('history_lock')
      .values({ ...holder, beat_at: Date.now() - 20_000 })
      .execute();
    const refused = await syncOnce(client, history.source, SETTINGS, {});
    expect(refused.ran === false && refused.reason).toMatch(/pid 4242 on elsewhere\.example/);
    await store.db
      .updateTable('history_lock')
      .set({ beat_at: Date.now() - 31_000 })
      .execute();
    const taken = await syncOnce(client, history.source, SETTINGS, {});
    expect(taken.ran).toBe(true);
  });

  it('a syncer started anew as the same holder (the sync command outgrowing its heap) takes its own lock back', async () => {
    const { client, history, store } = await open(join(dir, 'anew.sqlite'));
    // A thread of this process stopped without releasing it: its pid lives on, its beat is fresh.
    await store.db
      .insertInto('history_lock')
      .values({ name: 'sync', holder: 'the-command', host: hostname(), pid: process.pid, beat_at: Date.now() })
      .execute();
    const other = await syncOnce(client, history.source, SETTINGS, {});
    expect(other.ran === false && other.reason).toMatch(/another sync holds the store/);
    const same = await syncOnce(client, history.source, SETTINGS, { holder: 'the-command' });
    expect(same.ran && same.result.failed).toEqual([]);
    expect(await store.db.selectFrom('history_lock').selectAll().execute()).toEqual([]);
  });

  it('a killed syncer on this host is taken over at once, not after its beat goes stale', async () => {
    if (!existsSync(CLI)) throw new Error('run `npm run build` first: this test kills the built binary');
    const path = join(dir, 'killed.sqlite');
    const { client, history, store } = await open(path);
    sim.injectFault({ path: '*', kind: 'hang', count: 1000 });
    const args = ['sync', '--base-url', sim.url, '--api-token', sim.token, '--history', path];
    const child = spawn(process.execPath, [CLI, ...args, '--history-days', '2', '--history-months', '0'], {
      env: { PATH: process.env.PATH ?? '', ANALYTICS_CACHE_DIR: join(dir, 'cache') },
      stdio: 'ignore',
    });
    const exited = new Promise((resolve) => child.once('exit', (_c, signal) => resolve(signal)));
    try {
      const lockRow = () => store.db.selectFrom('history_lock').selectAll().executeTakeFirst();
      await until(async () => Number((await lockRow())?.pid) === child.pid);
      child.kill('SIGKILL');
      expect(await exited).toBe('SIGKILL');
      sim.clearFaults();
      // Its beat is fresh (seconds old): only its pid being gone lets the next sync in.
      expect(Date.now() - Number((await lockRow())!.beat_at)).toBeLessThan(30_000);
      const outcome = await syncOnce(client, history.source, SETTINGS, {});
      expect(outcome.ran && outcome.result.failed).toEqual([]);
      expect(outcome.ran && outcome.result.blocks).toBeGreaterThan(0);
    } finally {
      child.kill('SIGKILL');
      sim.clearFaults();
    }
  }, 30_000);
});
