import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { newApiKey, writeKeysFile } from '../../src/auth/api-keys.js';
import { startSimulator } from '../../src/simulator/index.js';
import { startHttpBinary } from '../helpers/http-binary.js';
import { buildYardstick } from './cold-start.bench.js';
import { goalLine } from './goal.js';
import { statelessCall } from '../helpers/stateless-call.js';

const WORKERS = 8;
const SECONDS = 2;
/** Rounds, interleaved, so that both servers see the same machine; the ratio is the median of each round's. */
const ROUNDS = 9;
/** Ours, with authentication, against a minimal server without: at least this share of its calls per second. */
const GOAL = 0.8;

const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]!;

/** Calls per second of one tool call, repeated by WORKERS concurrent callers for SECONDS (after a warm-up). */
export async function throughput(
  url: string,
  tool: string,
  args: unknown,
  headers: Record<string, string>,
): Promise<number> {
  const call = async () => {
    const res = await statelessCall(url, tool, args, headers);
    const text = await res.text();
    if (res.status !== 200 || text.includes('"isError":true')) throw new Error(`${res.status}: ${text.slice(0, 200)}`);
  };
  for (let i = 0; i < 50; i++) await call();
  let done = 0;
  const until = Date.now() + SECONDS * 1000;
  await Promise.all(
    Array.from({ length: WORKERS }, async () => {
      while (Date.now() < until) {
        await call();
        done++;
      }
    }),
  );
  return done / SECONDS;
}

/** Issue 11's figure: cached calls through HTTP with authentication on, against a minimal SDK v2 HTTP server. */
export async function benchHttpThroughput(print: (line: string) => void): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'oam-bench-http-'));
  const sim = await startSimulator({ users: 800, rateLimit: false, token: 'bench-http' });
  const servers: ChildProcess[] = [];
  try {
    const keysFile = join(dir, 'keys.json');
    const { key, entry } = newApiKey('read', null);
    writeKeysFile(keysFile, [entry]);
    const ours = await startHttpBinary(['--http', '--port', '0', '--api-keys-file', keysFile, '--cache-dir', 'none'], {
      PATH: process.env.PATH ?? '',
      ANALYTICS_API_TOKEN: sim.token,
      ANALYTICS_BASE_URL: sim.url,
      ANALYTICS_LOG_LEVEL: 'warn',
    });
    servers.push(ours.child);
    const minimal = await startHttpBinary([], {}, await buildYardstick(dir, 'minimal-http-server'));
    servers.push(minimal.child);
    const args = { range: 'last_7_days' };
    const a: number[] = [];
    const b: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      a.push(await throughput(minimal.url, 'get_counts', args, {}));
      b.push(await throughput(ours.url, 'get_active_user_counts', args, { authorization: `Bearer ${key}` }));
    }
    const [ma, mb] = [median(a), median(b)];
    const ratio = median(a.map((x, i) => b[i]! / x));
    print(
      `cached calls over HTTP, ${WORKERS} concurrent callers, medians of ${ROUNDS} interleaved ${SECONDS} s rounds (2025-06-18 stateless):`,
    );
    print(`  minimal SDK v2 HTTP server, no auth       ${ma.toFixed(0).padStart(6)} calls/s`);
    print(
      `  org-analytics-mcp, API key auth, cached   ${mb.toFixed(0).padStart(6)} calls/s  (by round: ${goalLine(ratio, '>=', GOAL)})`,
    );
  } finally {
    for (const s of servers) s.kill();
    await sim.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
