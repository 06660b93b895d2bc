import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../src/simulator/index.js';

// Needs `npm run build` first, like test/cli.test.ts.
const CLI = fileURLToPath(new URL('../../dist/cli.js', import.meta.url));

interface Ran {
  status: number | null;
  stdout: string;
  stderr: string;
}
/** Runs the built CLI; asynchronous, so that the in-process simulator keeps answering meanwhile. */
function run(args: string[], env: NodeJS.ProcessEnv = {}, killAfterMs = 15_000): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { env: { PATH: process.env.PATH ?? '', ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill(), killAfterMs);
    child.on('error', reject);
    child.on('close', (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    });
  });
}

describe('org-analytics-mcp warm', () => {
  let sim: Simulator;
  let dir: string;
  beforeAll(async () => {
    // Real time and the documented rate limits: the run must not meet a 429.
    sim = await startSimulator({ users: 300, rateLimit: true, token: 'cron-token' });
    dir = mkdtempSync(join(tmpdir(), 'warm-cli-'));
  });
  afterAll(async () => {
    await sim.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('--help describes the warm-up and its list, on stdout, exit 0', async () => {
    const r = await run(['warm', '--help']);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^Usage: org-analytics-mcp warm \[--warm-list LIST\]/);
    expect(r.stdout).toContain('ANALYTICS_WARM_LIST');
    expect(r.stderr).toBe('');
  });

  it.each([
    [['warm', '--warm-list', 'user-activity:yesterday'], {}, /'user-activity:yesterday' is not kind:range/],
    [['warm', '--warm-list'], {}, /--warm-list needs a list/],
    [['warm', '--demo'], { ANALYTICS_WARM_LIST: 'frobs:last_7_days' }, /'frobs:last_7_days' is not kind:range/],
    [['warm', '--demo', '--port', 'abc'], {}, /--port takes a number/],
    [['warm', '--frobnicate'], {}, /Unknown option '--frobnicate'/],
    [['warm'], {}, /ANALYTICS_API_TOKEN and ANALYTICS_BASE_URL are not set/],
    // The server's --warm checks its list at start-up, not when the first warm-up is due.
    [['--demo', '--warm', '--warm-list', 'frobs:last_7_days'], {}, /'frobs:last_7_days' is not kind:range/],
    [['--demo', '--warm'], { ANALYTICS_WARM_LIST: 'dau-count:tomorrow' }, /'dau-count:tomorrow' is not kind:range/],
  ])('%j with %j: usage error, exit 2', async (args, env, message) => {
    const r = await run(args, env);
    expect(r.status).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(message);
    expect(r.stderr).toMatch(/Run org-analytics-mcp (warm )?--help for the options/);
  });

  it('fetches into the cache directory, one progress line per answer; a second run finds them there', async () => {
    const env = {
      ANALYTICS_API_TOKEN: sim.token,
      ANALYTICS_BASE_URL: sim.url,
      ANALYTICS_CACHE_DIR: dir,
      ANALYTICS_HISTORY: 'none',
    };
    const first = await run(['warm', '--warm-list', 'user-activity:last_7_days,dau-count:last_90_days'], env);
    expect(first.stderr).toMatch(/user-activity:last_7_days: 3 pages in (\d+ ms|\d+(\.\d)? s), fetched\n/);
    expect(first.stderr).toMatch(/dau-count:last_90_days: 1 page in (\d+ ms|\d+(\.\d)? s), fetched\n/);
    expect(first.stderr).toMatch(/warm: done in (\d+ ms|\d+(\.\d)? s)\n$/);
    // A quick answer says so in milliseconds, never "0 s".
    expect(first.stderr).not.toMatch(/(?<![\d.])0 s\b/);
    expect(first.stdout).toBe('');
    expect(first.status).toBe(0);
    expect(sim.requests().filter((r) => r.status === 429)).toEqual([]);
    expect(sim.requests()).toHaveLength(4);

    const second = await run(['warm', '--warm-list=user-activity:last_7_days'], env);
    expect(second.stderr).toMatch(/user-activity:last_7_days: 3 pages in (\d+ ms|\d+(\.\d)? s), from cache\n/);
    expect(second.status).toBe(0);
    expect(sim.requests()).toHaveLength(4);
  });

  it('exits 1 with the reason when an answer cannot be fetched', async () => {
    const env = { ANALYTICS_API_TOKEN: 'not-the-token', ANALYTICS_BASE_URL: sim.url, ANALYTICS_CACHE_DIR: 'none' };
    const r = await run(['warm', '--warm-list', 'dau-count:last_7_days'], env);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/dau-count:last_7_days: failed after (\d+ ms|\d+(\.\d)? s): .+/);
    expect(r.stderr).toMatch(/1 of 1 failed after (\d+ ms|\d+(\.\d)? s): dau-count:last_7_days\n$/);
    expect(r.stderr).not.toContain('not-the-token');
  });

  it('--demo warms the default list against the embedded simulator', async () => {
    const r = await run(['warm', '--demo'], { ANALYTICS_HISTORY: 'none' });
    expect(r.status).toBe(0);
    expect(r.stderr.match(/: \d+ pages? in (\d+ ms|\d+(\.\d)? s), fetched\n/g)).toHaveLength(7);
  });

  it('with a history store, warming is the sync: --demo fills its store and says what it stored', async () => {
    // The demo's sync (60 days and 2 months, 1,075 requests) takes about 20 s of CPU: 25 s alone, 116 s on a
    // machine with a load of 15. Stopped after 240 s: a limit for a hung child, not a pace it must keep.
    const r = await run(['warm', '--demo'], {}, 240_000);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/^org-analytics-mcp warm: a history store is configured: warming is the sync/m);
    expect(r.stderr).toMatch(
      /sync: (\d+)\/\1 blocks \(general \d+\/\d+, credit-usage \d+\/\d+, cost-analytics \d+\/\d+\), \d+ requests, done\n/,
    );
    expect(r.stderr).toMatch(/done in [^:]+: [1-9]\d* blocks stored, [1-9]\d* requests\n$/);
  }, 250_000);
});
