import { performance } from 'node:perf_hooks';
import { Client } from '@modelcontextprotocol/client';
import { InMemoryTransport } from '@modelcontextprotocol/server';
import { configSchema } from '../../src/config/config.js';
import { createLogger } from '../../src/logger.js';
import { createServer } from '../../src/mcp/server.js';
import { Pseudonymizer } from '../../src/privacy/pii.js';
import { dau } from '../../src/upstream/endpoints/dau.js';
import { userActivity } from '../../src/upstream/endpoints/user-activity.js';
import { attachHistory } from '../../src/history/serving/runtime-history.js';
import type { AnalyticsClient } from '../../src/upstream/client.js';
import type { DigestPort } from '../../src/upstream/history-port.js';
import { clientFor } from '../helpers/client.js';
import { historyRig, type HistoryRig } from './history/history-fixture.js';
import { quantile } from './history/history-queries.js';
import { replicate } from './history/history-replicate.js';

type Print = (line: string) => void;
const DAYS = 90;
const MONTHS = 24;

/**
 * What get_adoption reads, put in the store: a week of daily active lists and the previous month's user
 * activity, fetched from the simulator (kept as they pass), then copied to 90 days and 24 months. (A synced
 * store also holds each day's user activity: get_adoption does not read it, so it is left out here.)
 */
async function fill(rig: HistoryRig, synced: number): Promise<number> {
  const { published } = rig.client.days();
  for (let d = published - synced + 1; d <= published; d++) {
    await rig.client.list(dau, { days: { start: d, end: d } });
  }
  const first = new Date(published * 86_400_000);
  const monthStart = Date.UTC(first.getUTCFullYear(), first.getUTCMonth() - 1, 1) / 86_400_000;
  const monthEnd = Date.UTC(first.getUTCFullYear(), first.getUTCMonth(), 0) / 86_400_000;
  await rig.client.list(userActivity, { days: { start: monthStart, end: monthEnd } });
  // The store writes live answers in the background: wait until the month block is there.
  const store = rig.history.source.store;
  for (let i = 0; i < 600 && !(await store.blocks('user-activity-months', monthStart, monthEnd)).length; i++)
    await new Promise((r) => setTimeout(r, 100));
  return replicate(rig, DAYS, MONTHS);
}

const quiet = createLogger(
  'error',
  (t) => t,
  () => {},
);

/** An MCP client of a server on `upstream` (a client with the store attached), in process. */
export async function mcpOn(
  rig: HistoryRig,
  upstream: AnalyticsClient,
  digests: DigestPort = rig.history.source.digest,
): Promise<Client> {
  const config = configSchema.parse({ token: rig.sim.token, baseUrl: rig.sim.url, logLevel: 'error' });
  const server = createServer({
    client: upstream,
    config,
    log: quiet,
    pii: new Pseudonymizer('full', 'b'),
    audit: () => {},
    digests,
  });
  const [a, b] = InMemoryTransport.createLinkedPair();
  await server.connect(a);
  const client = new Client({ name: 'bench', version: '1' });
  await client.connect(b);
  return client;
}

/** One call, timed, with the upstream requests it made. */
async function timed(rig: HistoryRig, client: Client, granularity: string) {
  const before = rig.sim.requests().length;
  const t = performance.now();
  const r = await client.callTool({ name: 'get_adoption', arguments: { granularity } }, { timeout: 600_000 });
  const ms = performance.now() - t;
  const sc = r.structuredContent as { periods: unknown[]; history_from: string | null };
  if (r.isError || !sc.history_from) throw new Error(`get_adoption failed: ${JSON.stringify(r.content)}`);
  return {
    ms,
    live: rig.sim.requests().length - before,
    periods: sc.periods.length,
    bytes: Buffer.byteLength(JSON.stringify(r.structuredContent)),
  };
}

export const figures = (ms: number[]) =>
  `p50 ${quantile(ms, 0.5).toFixed(0).padStart(5)} ms  p99 ${quantile(ms, 0.99).toFixed(0).padStart(5)} ms`;

/**
 * get_adoption's answers from the store at `users` people, through the protocol in process: cold (a new
 * client on the same store each time, so nothing read before is kept) and warm (the same client again).
 */
async function benchSize(print: Print, users: number, repeat: number): Promise<void> {
  const rig = await historyRig({ users, rateLimit: false });
  const opened: Array<{ close(): Promise<void> }> = [];
  try {
    const t0 = performance.now();
    const blocks = await fill(rig, 7);
    print(
      `  ${users.toLocaleString('en-US')} people: store filled with ${DAYS} days of daily lists and ${MONTHS} months of user activity ` +
        `(7 days and a month fetched, ${blocks} blocks copied) in ${((performance.now() - t0) / 1000).toFixed(0)} s`,
    );
    // Unmeasured: the first read opens the file and fills the page cache.
    await timed(rig, await mcpOn(rig, rig.client), 'week');
    for (const granularity of ['week', 'month']) {
      const cold: number[] = [];
      const warm: number[] = [];
      let last = { ms: 0, live: 0, periods: 0, bytes: 0 };
      let live = 0;
      for (let i = 0; i < Math.max(3, Math.ceil(repeat / 3)); i++) {
        const upstream = clientFor(rig.sim);
        const history = await attachHistory(upstream, { history: rig.file!, cacheDir: undefined, demo: false }, quiet);
        opened.push(upstream, history!);
        last = await timed(rig, await mcpOn(rig, upstream, history!.source.digest), granularity);
        cold.push(last.ms);
        live += last.live;
      }
      const client = await mcpOn(rig, rig.client);
      await timed(rig, client, granularity);
      for (let i = 0; i < repeat; i++) {
        last = await timed(rig, client, granularity);
        warm.push(last.ms);
        live += last.live;
      }
      print(
        `    ${granularity.padEnd(5)} the stored history (${last.periods} periods): cold n=${cold.length} ${figures(cold)}; ` +
          `warm n=${warm.length} ${figures(warm)} (goal p99 <= 1000 ms: cold ${quantile(cold, 0.99) <= 1000 ? 'met' : 'not met'}, ` +
          `warm ${quantile(warm, 0.99) <= 1000 ? 'met' : 'not met'}); answer ${last.bytes} bytes; upstream requests ${live}`,
      );
    }
  } finally {
    for (const o of opened.reverse()) await o.close();
    await rig.close();
  }
}

/** The organization sizes a bench runs at: its own variable, else BENCH_HISTORY_SIZES, else 10,000. */
export const benchSizes = (variable: string): number[] =>
  (process.env[variable] ?? process.env.BENCH_HISTORY_SIZES ?? '10000').split(',').map(Number);

/**
 * Issue 24's figures for get_adoption: p50 and p99 from the store (SQLite), at 10,000 people by default;
 * `BENCH_ADOPTION_SIZES=10000,50000` (or BENCH_HISTORY_SIZES) adds 50,000.
 */
export async function benchAdoption(print: Print): Promise<void> {
  const sizes = benchSizes('BENCH_ADOPTION_SIZES');
  const repeat = Number(process.env.BENCH_ADOPTION_REPEAT ?? 10);
  print('get_adoption from the history store (SQLite), in process, through the protocol:');
  for (const users of sizes) await benchSize(print, users, repeat);
}
