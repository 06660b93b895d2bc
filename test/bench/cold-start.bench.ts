import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { goalLine } from './goal.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const RUNS = 9;
const IDLE_MS = 1000;
const GOAL = { ms: 1.2, rss: 1.1 };
// No network before tools/list: the port is valid but nothing listens on it.
const ENV = { PATH: process.env.PATH, ANALYTICS_API_TOKEN: 'bench-token', ANALYTICS_BASE_URL: 'http://127.0.0.1:9' };

interface StartFigures {
  ms: number;
  rssMb: number;
}

/** Spawn to the first tools/list answer over stdio, then the resident set size after a second idle. */
async function coldStart(script: string): Promise<StartFigures> {
  const t0 = performance.now();
  const child = spawn(process.execPath, [script], { stdio: ['pipe', 'pipe', 'pipe'], env: ENV });
  let out = '';
  let err = '';
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const answered = new Promise<number>((resolve, reject) => {
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('"id":2')) resolve(performance.now() - t0);
    });
    child.once('exit', (code) => reject(new Error(`${script} exited (${code}) before answering tools/list: ${err}`)));
  });
  const send = (m: object) => child.stdin.write(`${JSON.stringify(m)}\n`);
  const clientInfo = { name: 'bench', version: '1' };
  send({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo },
  });
  send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
  const ms = await answered;
  await new Promise((r) => setTimeout(r, IDLE_MS));
  const rssKb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))?.[1] ?? 0);
  child.removeAllListeners('exit');
  const exited = new Promise((r) => child.once('exit', r));
  child.kill();
  await exited;
  return { ms, rssMb: rssKb / 1024 };
}

/** A yardstick server (test/bench/<name>.ts), bundled with the same esbuild settings as dist/cli.js. */
export async function buildYardstick(outdir: string, name = 'minimal-server'): Promise<string> {
  const outfile = join(outdir, `${name}.mjs`);
  await build({
    entryPoints: [join(ROOT, `test/bench/${name}.ts`)],
    outfile,
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'esm',
    logLevel: 'warning',
    banner: {
      js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
    },
  });
  return outfile;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/**
 * dist/cli.js against a minimal SDK v2 stdio server, interleaved in one run so that both see the same machine.
 * OAM_BENCH_ALSO may name more built entry points (colon-separated), e.g. an earlier dist/cli.js to compare.
 */
export async function benchColdStartSideBySide(print: (line: string) => void): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'oam-bench-minimal-'));
  try {
    const candidates: Array<[string, string]> = [
      ['minimal SDK v2 stdio server (1 tool)', await buildYardstick(dir)],
      ['org-analytics-mcp dist/cli.js', join(ROOT, 'dist/cli.js')],
      ...(process.env.OAM_BENCH_ALSO ?? '')
        .split(':')
        .filter(Boolean)
        .map((path): [string, string] => [path, path]),
    ];
    const figures = candidates.map((): StartFigures[] => []);
    // One unmeasured start each first, so that no candidate pays for a cold file cache.
    for (const [, script] of candidates) await coldStart(script);
    for (let i = 0; i < RUNS; i++)
      for (const [k, [, script]] of candidates.entries()) figures[k]!.push(await coldStart(script));
    const summary = figures.map((f) => ({ ms: median(f.map((x) => x.ms)), rssMb: median(f.map((x) => x.rssMb)) }));
    const base = summary[0]!;
    print(
      `cold start, spawn to first tools/list answer over stdio, and idle RSS ${IDLE_MS} ms later (median of ${RUNS}, interleaved):`,
    );
    for (const [k, [label]] of candidates.entries()) {
      const { ms, rssMb } = summary[k]!;
      const ratios = k === 0 ? '' : `  (${(ms / base.ms).toFixed(2)}x, ${(rssMb / base.rssMb).toFixed(2)}x)`;
      print(`  ${label.padEnd(38)} ${ms.toFixed(0).padStart(5)} ms  ${rssMb.toFixed(1).padStart(6)} MB${ratios}`);
    }
    const ours = summary[1]!;
    print(
      `  cold start ${goalLine(ours.ms / base.ms, '<=', GOAL.ms)}; idle RSS ${goalLine(ours.rssMb / base.rssMb, '<=', GOAL.rss)}`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
