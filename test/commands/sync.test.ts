import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_REFRESH_HOUR_UTC, daysAt } from '../../src/domain/published-days.js';
import { attachHistory } from '../../src/history/serving/runtime-history.js';
import { syncOnce } from '../../src/history/sync/sync-run.js';
import { createLogger } from '../../src/logger.js';
import { startSimulator, type Simulator } from '../../src/simulator/index.js';
import { clientFor } from '../helpers/client.js';

// Needs `npm run build` first: these run `org-analytics-mcp sync` as cron would.
const CLI = fileURLToPath(new URL('../../dist/cli.js', import.meta.url));

const quiet = createLogger(
  'error',
  (t) => t,
  () => {},
);

interface Ran {
  status: number | null;
  stdout: string;
  stderr: string;
}

describe('org-analytics-mcp sync, as cron runs it (stderr not a terminal)', () => {
  let sim: Simulator;
  let dir: string;
  let n = 0;
  /** Runs the built CLI on a store of its own (or `history`), no other history variable set. */
  const run = (
    extra: string[],
    opts: {
      history?: string;
      baseUrl?: string;
      token?: string;
      timeoutMs?: number;
      onStart?: (kill: () => void) => void;
    } = {},
  ) =>
    new Promise<Ran & { history: string }>((resolve, reject) => {
      const history = opts.history ?? join(dir, `store-${++n}.sqlite`);
      const args = [
        'sync',
        '--base-url',
        opts.baseUrl ?? sim.url,
        '--api-token',
        opts.token ?? sim.token,
        '--history',
        history,
      ];
      const child = spawn(process.execPath, [CLI, ...args, ...extra], {
        env: { PATH: process.env.PATH ?? '', ANALYTICS_CACHE_DIR: 'none', ANALYTICS_HISTORY: 'none' },
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 40_000);
      child.on('error', reject);
      child.on('close', (status) => {
        clearTimeout(timer);
        resolve({ status, stdout, stderr, history });
      });
      opts.onStart?.(() => child.kill('SIGTERM'));
    });

  beforeAll(async () => {
    if (!existsSync(CLI)) throw new Error('run `npm run build` first: these tests run the built binary');
    // Real time (the child's clock), the documented rate limits: a run must meet no 429.
    sim = await startSimulator({ users: 40, rateLimit: true, token: 'cron-sync-token' });
    dir = mkdtempSync(join(tmpdir(), 'sync-command-'));
  });
  afterAll(async () => {
    await sim?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it.each([
    [['--history-days', '1000'], /--history-days \/ ANALYTICS_HISTORY_DAYS/],
    [['--history-months', '25'], /--history-months \/ ANALYTICS_HISTORY_MONTHS/],
    [['--sync-share', '2'], /--sync-share \/ ANALYTICS_SYNC_SHARE must be from 0\.05 to 1/],
    [['--frobnicate'], /Unknown option '--frobnicate'/],
    [['--history', 'none'], /sync needs a history store, and --history none keeps none/],
    // The runs below have no cache directory (ANALYTICS_CACHE_DIR=none): auto keeps nothing there.
    [['--history', 'auto'], /--history auto keeps none without a cache directory/],
  ])('%j: usage error, exit 2, nothing sent', async (extra, message) => {
    const before = sim.requests().length;
    const r = await run(extra);
    expect(r.status).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(message);
    expect(sim.requests().length).toBe(before);
  });

  it('3 days: progress lines on stderr (blocks of total, requests, time left), a done line, exit 0, no 429', async () => {
    sim.clearRequests();
    const r = await run(['--history-days', '3', '--history-months', '0', '--sync-share', '1']);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toBe('');
    const lines = r.stderr.trim().split('\n');
    const progress = lines.filter((l) => l.startsWith('org-analytics-mcp sync: sync: '));
    // 7 datasets of 3 days each, and credit usage's days after them through today: today, and yesterday too before
    // the refresh hour (yesterday is not published yet). One request a second in the general group, so a line every
    // 5 s meanwhile.
    const days = daysAt(Date.now(), DEFAULT_REFRESH_HOUR_UTC);
    const [credit, all] = [3 + days.today - days.published, 18 + 3 + days.today - days.published];
    const shape = new RegExp(
      `^org-analytics-mcp sync: sync: (\\d+)\\/${all} blocks \\(general \\d+\\/15, credit-usage \\d+\\/${credit}, ` +
        `cost-analytics \\d+\\/3\\), (\\d+) requests?, (.+)$`,
    );
    for (const line of progress) expect(line).toMatch(shape);
    expect(progress.length).toBeGreaterThanOrEqual(3);
    expect(progress.slice(1, -1).some((l) => / ~\d+ s left$/.test(l))).toBe(true);
    expect(progress.at(-1)).toMatch(new RegExp(` ${all}\\/${all} blocks .*, done$`));
    const sent = sim.requests();
    expect(lines.at(-1)).toMatch(
      new RegExp(`^org-analytics-mcp sync: done in \\d+(\\.\\d)? s: ${all} blocks stored, ${sent.length} requests$`),
    );
    expect(sent.filter((s) => s.status !== 200)).toEqual([]);
  }, 40_000);

  it('a request that fails (500 three times): exit 1, says what failed; the next run fetches just that', async () => {
    sim.injectFault({ path: '/analytics/v0/dau-count', kind: '500', count: 3 });
    const first = await run(['--history-days', '1', '--history-months', '0', '--sync-share', '1']);
    expect(first.status, first.stderr).toBe(1);
    expect(first.stdout).toBe('');
    expect(first.stderr).toMatch(/failed: dau-count \d{4}-\d\d-\d\d\.\.\d{4}-\d\d-\d\d: /);
    expect(first.stderr).toMatch(/1 request failed after .*; run sync again to fetch them\n$/);
    expect(first.stderr).toMatch(/, 1 failed\n/);
    sim.clearRequests();
    const second = await run(['--history-days', '1', '--history-months', '0'], { history: first.history });
    expect(second.status, second.stderr).toBe(0);
    expect(sim.requests().map((r) => r.path)).toEqual(['/analytics/v0/dau-count']);
    expect(second.stderr).toMatch(/done in .*: 1 block stored, 1 request\n$/);
  }, 40_000);

  it('an unreachable upstream: exit 1, and the rest is not tried once each rate group failed 3 times', async () => {
    const closed = await new Promise<number>((resolve) => {
      const s = createServer().listen(0, '127.0.0.1', () => {
        const { port } = s.address() as { port: number };
        s.close(() => resolve(port));
      });
    });
    const r = await run(['--history-days', '30', '--history-months', '0', '--sync-share', '1'], {
      baseUrl: `http://127.0.0.1:${closed}`,
    });
    expect(r.status, r.stderr).toBe(1);
    // general: 3 failed of 94; credit-usage and cost-analytics: their 5 windows and 2 range blocks each, 3 failed
    // (the range blocks of the last 7 and 30 days of 3 datasets; the last 90 lie beyond the 30 days kept).
    expect(r.stderr).toMatch(/9 requests failed \(and 99 not tried: the upstream refused or was down\)/);
  }, 40_000);

  it('a token the upstream refuses: exit 1 after the first refusals, nothing else tried', async () => {
    sim.clearRequests();
    const r = await run(['--history-days', '30', '--history-months', '0', '--sync-share', '1'], {
      token: 'not-the-token',
    });
    expect(r.status, r.stderr).toBe(1);
    // One request of each group was on its way when the first refusal came; the other 105 of 108 (102 and 6 range
    // blocks) are not tried.
    expect(r.stderr).toMatch(/3 requests failed \(and 105 not tried: the upstream refused or was down\)/);
    expect(sim.requests().length).toBe(3);
  }, 40_000);

  it('SIGTERM while it waits for its pace: exits 1 at once, what was stored stays whole', async () => {
    sim.clearRequests();
    // At 5% of the rate the next request of each group is 20 to 40 s away: the signal must not wait for it.
    const r = await run(['--history-days', '2', '--history-months', '0', '--sync-share', '0.05'], {
      timeoutMs: 15_000,
      onStart: (kill) => {
        const poll = setInterval(() => {
          if (sim.requests().length < 3) return;
          clearInterval(poll);
          setTimeout(kill, 300);
        }, 25);
      },
    });
    expect(r.status, r.stderr).toBe(1);
    expect(r.stderr).toMatch(/, stopped\n.*interrupted: what was stored stays, the next run resumes\n$/s);
    const client = clientFor(sim);
    const kept = (await attachHistory(client, { history: r.history, cacheDir: undefined, demo: false }, quiet))!;
    try {
      const blocks = await kept.source.store.db.selectFrom('history_blocks').selectAll().execute();
      expect(blocks.length).toBeGreaterThan(0);
      for (const b of blocks)
        expect((await kept.source.store.rows(b.dataset, b.start_day, b.end_day)).length).toBe(b.rows);
    } finally {
      await kept.close();
      await client.close();
    }
  }, 30_000);

  it('another sync holds the store: says so, exit 0, sends nothing', async () => {
    const history = join(dir, 'held.sqlite');
    const client = clientFor(sim);
    const held = (await attachHistory(client, { history, cacheDir: undefined, demo: false }, quiet))!;
    sim.injectFault({ path: '*', kind: 'hang', count: 100 });
    const controller = new AbortController();
    const running = syncOnce(
      client,
      held.source,
      { historyDays: 1, historyMonths: 0, syncShare: 1 },
      { signal: controller.signal },
    );
    try {
      for (let i = 0; i < 200 && sim.requests().filter((q) => q.fault === 'hang').length < 3; i++)
        await new Promise((r) => setTimeout(r, 25));
      const before = sim.requests().length;
      const r = await run(['--history-days', '1', '--history-months', '0'], { history });
      expect(r.status, r.stderr).toBe(0);
      expect(r.stderr).toMatch(/another sync holds the store \(pid \d+ on .+\); nothing to do\n$/);
      expect(sim.requests().length).toBe(before);
    } finally {
      controller.abort();
      sim.clearFaults();
      await running;
      await held.close();
      await client.close();
    }
  }, 40_000);
});
