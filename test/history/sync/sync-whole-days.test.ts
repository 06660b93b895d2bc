import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HistoryStore } from '../../../src/history/store/history-store.js';
import { attachHistory } from '../../../src/history/serving/runtime-history.js';
import { syncOnce } from '../../../src/history/sync/sync-run.js';
import { createLogger } from '../../../src/logger.js';
import { startSimulator, type RequestLogEntry, type Simulator } from '../../../src/simulator/index.js';
import { parseIsoDay } from '../../../src/util/utc-date.js';
import { clientFor } from '../../helpers/client.js';

// Needs `npm run build` first: a process is killed with SIGKILL half-way through a day.
const CLI = fileURLToPath(new URL('../../../dist/cli.js', import.meta.url));
const SETTINGS = { historyDays: 3, historyMonths: 0, syncShare: 1 };
const quiet = createLogger(
  'error',
  (t) => t,
  () => {},
);
const until = async (what: () => boolean | Promise<boolean>, ms = 15_000) => {
  for (const end = Date.now() + ms; Date.now() < end; await new Promise((r) => setTimeout(r, 50)))
    if (await what()) return;
  throw new Error('waited in vain');
};

/**
 * Every stored block with the records it says it has, rows of a dataset that belong to no block, and the pages
 * staged (under `staging:<dataset>`, a name no reader asks for) by a fetch that never committed them.
 */
async function wholeness(store: HistoryStore) {
  const blocks = await store.db.selectFrom('history_blocks').selectAll().execute();
  const counts = await store.db
    .selectFrom('history_rows')
    .select(['dataset', 'start_day', 'end_day', (eb) => eb.fn.countAll<number>().as('n')])
    .groupBy(['dataset', 'start_day', 'end_day'])
    .execute();
  const key = (r: { dataset: string; start_day: number; end_day: number }) =>
    `${r.dataset} ${Number(r.start_day)}..${Number(r.end_day)}`;
  const rowsOf = new Map(counts.map((c) => [key(c), Number(c.n)]));
  return {
    // A block's rows hold its records a batch at a time (a digest is one row).
    blocks: await Promise.all(
      blocks.map(async (b) => ({
        key: key(b),
        said: Number(b.rows),
        found: b.dataset.startsWith('digest:')
          ? (rowsOf.get(key(b)) ?? 0)
          : (await store.rows(b.dataset, Number(b.start_day), Number(b.end_day))).length,
      })),
    ),
    orphans: [...rowsOf.keys()].filter((k) => !k.startsWith('staging:') && !blocks.some((b) => key(b) === k)),
    staged: [...rowsOf.keys()].filter((k) => k.startsWith('staging:')),
  };
}

/** The days one logged request asked for, as `path day` keys. */
function daysAsked(r: RequestLogEntry): string[] {
  const q = { ...r.query, ...((r.body as Record<string, string> | undefined) ?? {}) };
  const start = parseIsoDay(q.date ?? q.start_date!)!;
  const end = parseIsoDay(q.date ?? q.end_date!)!;
  const name = r.path.split('/').pop();
  return Array.from({ length: end - start + 1 }, (_, i) => `${name} ${start + i}`);
}

const DAY_DATASETS: Record<string, string> = {
  'user-activity': 'user-activity',
  dau: 'dau',
  'daily-user-activity-by-editor-language': 'editor-language',
};

describe('a day is stored whole or not at all', () => {
  let sim: Simulator;
  let dir: string;
  beforeAll(async () => {
    // Real time: the child's clock and the simulator's agree. 300 people: a day of user activity is 3 pages.
    sim = await startSimulator({ users: 300, rateLimit: false, token: 'kill-token' });
    dir = mkdtempSync(join(tmpdir(), 'sync-whole-'));
    if (!existsSync(CLI)) throw new Error('run `npm run build` first: this test kills the built binary');
  });
  afterAll(async () => {
    await sim?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('kill -9 on the second page of a day: no block without all its rows; the next run fetches only the rest', async () => {
    const path = join(dir, 'killed.sqlite');
    // The second request of user activity (page 2 of the newest day) trickles a byte a second: it never ends.
    sim.injectFault({ path: '/analytics/v0/user-activity', kind: 'trickle', skip: 1, intervalMs: 1000 });
    const args = ['sync', '--base-url', sim.url, '--api-token', sim.token, '--history', path, '--sync-share', '1'];
    const child = spawn(process.execPath, [CLI, ...args, '--history-days', '3', '--history-months', '0'], {
      env: { PATH: process.env.PATH ?? '', ANALYTICS_CACHE_DIR: join(dir, 'cache') },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<NodeJS.Signals | null>((resolve) => child.once('exit', (_c, signal) => resolve(signal)));

    const client = clientFor(sim);
    const history = (await attachHistory(client, { history: path, cacheDir: undefined, demo: false }, quiet))!;
    const store = history.source.store;
    try {
      // Killed once other days are in and page 2 of a day is on its way.
      const trickled = () => sim.requests().find((r) => r.fault === 'trickle');
      await until(async () => trickled() !== undefined && (await wholeness(store)).blocks.length > 0);
      const cut = trickled()!;
      expect(cut.query.cursor, 'the request cut off is a later page of its day').toBeTruthy();
      child.kill('SIGKILL');
      expect(await exited, stderr).toBe('SIGKILL');

      const left = await wholeness(store);
      expect(left.orphans).toEqual([]);
      for (const b of left.blocks) expect(b.found, b.key).toBe(b.said);
      const cutDay = parseIsoDay(cut.query.start_date!);
      // The first page of the day cut off was staged as it came, and answers nothing.
      expect(left.staged).toContain(`staging:user-activity ${cutDay}..${cutDay}`);
      expect(left.blocks.map((b) => b.key)).not.toContain(`user-activity ${cutDay}..${cutDay}`);
      const lock = await store.db.selectFrom('history_lock').selectAll().executeTakeFirst();
      expect(Number(lock?.pid), 'the killed process still holds the lock').toBe(child.pid);

      // The next run takes the dead holder's lock at once and asks only for the days the store lacks.
      const had = new Set(left.blocks.map((b) => b.key));
      sim.clearRequests();
      const outcome = await syncOnce(client, history.source, SETTINGS, {});
      expect(outcome.ran && outcome.result.failed).toEqual([]);
      const asked = sim.requests().flatMap(daysAsked);
      expect(asked.length).toBeGreaterThan(0);
      for (const a of asked) {
        const [name, day] = a.split(' ');
        const dataset = DAY_DATASETS[name!];
        // Per-day datasets: a stored day is never asked for again.
        if (dataset) expect(had.has(`${dataset} ${day}..${day}`), a).toBe(false);
      }
      // The day that was cut off is fetched whole this time, and every block is whole.
      expect(asked).toContain(`user-activity ${cutDay}`);
      const after = await wholeness(store);
      for (const b of after.blocks) expect(b.found, b.key).toBe(b.said);
      expect(after.blocks.map((b) => b.key)).toContain(`user-activity ${cutDay}..${cutDay}`);
      expect(after.staged).toEqual([]);
      // Nothing left: a third run sends nothing.
      sim.clearRequests();
      const third = await syncOnce(client, history.source, SETTINGS, {});
      expect(third.ran && third.result.requests).toBe(0);
      expect(sim.requests()).toEqual([]);
    } finally {
      child.kill('SIGKILL');
      sim.clearFaults();
      await history.close();
      await client.close();
    }
  }, 40_000);

  it('an abort half-way through a day (in process): that day is not stored; a new run fetches it whole', async () => {
    const path = join(dir, 'aborted.sqlite');
    sim.injectFault({ path: '/analytics/v0/user-activity', kind: 'trickle', skip: 1, intervalMs: 1000 });
    const client = clientFor(sim);
    const history = (await attachHistory(client, { history: path, cacheDir: undefined, demo: false }, quiet))!;
    const controller = new AbortController();
    const lines: string[] = [];
    try {
      sim.clearRequests();
      const running = syncOnce(client, history.source, SETTINGS, {
        signal: controller.signal,
        onProgress: (l) => lines.push(l.text),
      });
      await until(() => sim.requests().some((r) => r.fault === 'trickle'));
      const cut = sim.requests().find((r) => r.fault === 'trickle')!;
      expect(cut.query.cursor, 'the request cut off is a later page of its day').toBeTruthy();
      controller.abort();
      const outcome = await running;
      // Interrupted is not failed: nothing to report but what is missing.
      expect(outcome.ran && outcome.result.failed).toEqual([]);
      expect(lines.at(-1)).toMatch(/, stopped$/);
      const day = parseIsoDay(cut.query.start_date!)!;
      const left = await wholeness(history.source.store);
      expect(left.orphans).toEqual([]);
      expect(left.staged).toEqual([]);
      for (const b of left.blocks) expect(b.found, b.key).toBe(b.said);
      expect(left.blocks.map((b) => b.key)).not.toContain(`user-activity ${day}..${day}`);
    } finally {
      controller.abort();
      sim.clearFaults();
      await history.close();
      await client.close();
    }
    // A new run (a new client: nothing in its memory cache) fetches that day from its first page.
    const client2 = clientFor(sim);
    const history2 = (await attachHistory(client2, { history: path, cacheDir: undefined, demo: false }, quiet))!;
    try {
      sim.clearRequests();
      const outcome = await syncOnce(client2, history2.source, SETTINGS, {});
      expect(outcome.ran && outcome.result.failed).toEqual([]);
      const after = await wholeness(history2.source.store);
      for (const b of after.blocks) expect(b.found, b.key).toBe(b.said);
      // 21 days' blocks and credit usage's days after them through today (yesterday too before the refresh hour),
      // the cost rollups stored with each cost day (3 days × 3 rollups), and the digests of user activity, the
      // daily lists, credits and cost.
      const { today, published } = client2.days();
      const derived = after.blocks.filter((b) => /^(cost-(by-day|total-months)-by-|digest:)/.test(b.key));
      expect(after.blocks.length - derived.length).toBe(21 + today - published);
      expect(derived.filter((b) => b.key.startsWith('digest:')).length).toBe(12 + today - published);
      expect(derived.filter((b) => !b.key.startsWith('digest:'))).toHaveLength(9);
    } finally {
      await history2.close();
      await client2.close();
    }
  }, 30_000);
});
