import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runExportCommand } from '../../src/commands/export.js';
import { attachHistory } from '../../src/history/serving/runtime-history.js';
import { syncOnce } from '../../src/history/sync/sync-run.js';
import { createLogger } from '../../src/logger.js';
import { startSimulator, type Simulator } from '../../src/simulator/index.js';
import { clientFor } from '../helpers/client.js';
import { NOW } from '../helpers/sim.js';

const ARGS = ['--from', '2026-11-18', '--to', '2026-11-20', '--what', 'user-activity', '--format', 'csv'];

/** Standard output whose reader has gone: every write fails as a closed pipe does. */
const closedPipe = () =>
  new Writable({
    write(_chunk, _encoding, callback) {
      callback(Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }));
    },
  });

describe('org-analytics-mcp export, stopped before the end', () => {
  let sim: Simulator;
  let dir: string;
  let path: string;

  beforeAll(async () => {
    sim = await startSimulator({ users: 60, now: NOW, rateLimit: false, token: 'rw' });
    dir = mkdtempSync(join(tmpdir(), 'export-stops-'));
    path = join(dir, 'h.sqlite');
    const client = clientFor(sim);
    const quiet = createLogger(
      'warn',
      (t) => t,
      () => {},
    );
    const history = (await attachHistory(client, { history: path, cacheDir: undefined, demo: false }, quiet))!;
    const outcome = await syncOnce(client, history.source, { historyDays: 8, historyMonths: 0, syncShare: 1 }, {});
    expect(outcome.ran && outcome.result.failed).toEqual([]);
    await history.close();
    await client.close();
  }, 60_000);
  afterAll(async () => {
    await sim?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const run = async (argv: string[], stdout: Writable, signal?: AbortSignal) => {
    const said: string[] = [];
    const code = await runExportCommand(
      [...argv, '--history', path, '--api-token', sim.token, '--base-url', sim.url],
      { ANALYTICS_CACHE_DIR: 'none' },
      { stdout, say: (line) => said.push(line), signal },
    );
    return { code, said: said.join('\n') };
  };

  it('stops quietly with exit 1 when the reader of standard output goes away (`| head`)', async () => {
    const { code, said } = await run(ARGS, closedPipe());
    expect(code).toBe(1);
    expect(said).toMatch(/standard output was closed by its reader after \d+ rows; stopped/);
    expect(said).not.toMatch(/rows of \d+ stored days written/);
  });

  it('writes FILE whole under its name, and nothing else next to it', async () => {
    const out = join(dir, 'whole.csv');
    writeFileSync(out, 'an earlier export\n');
    const { code } = await run([...ARGS, '--out', out], closedPipe());
    expect(code).toBe(0);
    const lines = readFileSync(out, 'utf8').split('\r\n');
    expect(lines[0]).toMatch(/^date,user_email,service_account_name,/);
    expect(lines.length).toBeGreaterThan(60);
    expect(readdirSync(dir).filter((f) => f.includes('partial'))).toEqual([]);
  });

  it('leaves FILE as it was when interrupted (Ctrl-C), exit 130, with no half-written file beside it', async () => {
    const out = join(dir, 'kept.csv');
    writeFileSync(out, 'an earlier export\n');
    const interrupted = new AbortController();
    interrupted.abort();
    const { code, said } = await run([...ARGS, '--out', out], closedPipe(), interrupted.signal);
    expect(code).toBe(130);
    expect(said).toContain(`interrupted after 0 rows: ${out} not written`);
    expect(readFileSync(out, 'utf8')).toBe('an earlier export\n');
    expect(readdirSync(dir).filter((f) => f.includes('partial'))).toEqual([]);
  });
});
