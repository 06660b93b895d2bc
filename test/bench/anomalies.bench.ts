import { performance } from 'node:perf_hooks';
import { Client } from '@modelcontextprotocol/client';
import { InMemoryTransport } from '@modelcontextprotocol/server';
import { configSchema } from '../../src/config/config.js';
import { ROLLUPS, rollupDataset } from '../../src/history/store/derived/cost-rollups.js';
import { datasetById } from '../../src/history/store/datasets.js';
import { digestId } from '../../src/history/store/block-ids.js';
import { lastStorableDay } from '../../src/history/store/store-rules.js';
import { syncOnce } from '../../src/history/sync/sync-run.js';
import { formatDay } from '../../src/util/utc-date.js';
import { createLogger } from '../../src/logger.js';
import { createServer } from '../../src/mcp/server.js';
import { Pseudonymizer } from '../../src/privacy/pii.js';
import { historyRig, type HistoryRig } from './history/history-fixture.js';
import { quantile } from './history/history-queries.js';
import { profiled } from './cpu-profile.js';

/** Days the default question reads: the last 30 complete days and the 28 before each, and today's credits. */
const DAYS = 60;
const RUNS = 10;
/**
 * A pause between calls: each call's listings stay reachable for a few seconds after it (outside the tool:
 * about 40 MB a call at 2,000 people, 200 MB at 10,000), and back to back they exhaust a default heap.
 */
const PAUSE_MS = 5_000;

/**
 * What find_anomalies reads: the daily active counts, credits by date (with its digest), cost rolled up by
 * resource and in all, and the digest of cost by day (copied as it is: its rows, every key, are not read).
 */
const READ = [
  datasetById('dau-count'),
  datasetById('credits-by-date-model'),
  ...ROLLUPS.filter((r) => r.from === 'cost-by-day').map(rollupDataset),
  { ...datasetById('cost-by-day'), id: digestId('cost-by-day') },
];

/**
 * Fills `days` days of what find_anomalies reads by copying the day blocks a short sync stored (a day's rows
 * to another day, dates rewritten): the other datasets, which it does not read, are left as synced.
 */
async function copyDays(rig: HistoryRig, days: number): Promise<void> {
  const store = rig.history.source.store;
  for (const dataset of READ) {
    const held = await store.blocks(dataset.id, 0, 1_000_000);
    const have = new Set(held.map((b) => b.start));
    const last = lastStorableDay(dataset, rig.client.days());
    let i = 0;
    for (let d = last - days + 1; d <= last; d++) {
      if (have.has(d)) continue;
      const from = held[i++ % held.length]!;
      const [a, b] = [formatDay(from.start), formatDay(d)];
      const rows = (await store.rows(dataset.id, from.start, from.end)).map((row) => {
        const out = { ...row };
        for (const f of ['date', 'start_date', 'end_date']) if (out[f] === a) out[f] = b;
        return out;
      });
      await store.put([{ ...from, start: d, end: d, expires_at: null, items: rows }]);
    }
  }
}

/**
 * Issue 24's figures for find_anomalies: p50 and p99 of the default question (the last 30 complete days)
 * answered from a SQLite store through MCP in process. A few days are synced from the simulator and what
 * the tool reads is copied to 60 days (copyDays). `BENCH_ANOMALY_SIZES=10000,50000` picks the sizes (default 10,000).
 */
export async function benchAnomalies(print: (line: string) => void): Promise<void> {
  const sizes = (process.env.BENCH_ANOMALY_SIZES ?? '10000').split(',').map(Number);
  const log = createLogger(
    'error',
    (t) => t,
    () => {},
  );
  print(
    `find_anomalies from the history store (issue 24), default question, ${RUNS} calls ${PAUSE_MS / 1000} s apart after one unmeasured:`,
  );
  for (const users of sizes) {
    const rig = await historyRig({ users, rateLimit: false });
    try {
      const t0 = performance.now();
      const synced = await syncOnce(
        rig.client,
        rig.history.source,
        { historyDays: 3, historyMonths: 0, syncShare: 1 },
        {},
      );
      if (!synced.ran || synced.result.failed.length) throw new Error('the sync failed');
      const syncedIn = (performance.now() - t0) / 1000;
      process.stderr.write(
        `  synced ${users}: ${syncedIn.toFixed(0)} s, rss ${(process.memoryUsage().rss / 2 ** 20).toFixed(0)} MB\n`,
      );
      await copyDays(rig, DAYS);
      const filled = (performance.now() - t0) / 1000;
      process.stderr.write(
        `  copied: ${filled.toFixed(0)} s, rss ${(process.memoryUsage().rss / 2 ** 20).toFixed(0)} MB\n`,
      );
      const config = configSchema.parse({ token: rig.sim.token, baseUrl: rig.sim.url, answerWithinS: 600 });
      const deps = { client: rig.client, config, log, pii: new Pseudonymizer('full', 'b'), audit: () => {} };
      const server = createServer(deps);
      const [a, b] = InMemoryTransport.createLinkedPair();
      await server.connect(a);
      const client = new Client({ name: 'bench', version: '1' });
      await client.connect(b);
      try {
        const call = () => client.callTool({ name: 'find_anomalies', arguments: {} }, { timeout: 600_000 });
        const first = (await call()).structuredContent as { count: number; needs?: string };
        const before = rig.sim.requests().length;
        const ms: number[] = [];
        await profiled(`find-anomalies-${users}`, async () => {
          for (let i = 0; i < RUNS; i++) {
            await new Promise((resolve) => setTimeout(resolve, PAUSE_MS));
            const t = performance.now();
            await call();
            ms.push(performance.now() - t);
          }
        });
        const live = rig.sim.requests().length - before;
        const rss = process.memoryUsage().rss / 2 ** 20;
        print(
          `  ${users.toLocaleString('en')} people: p50 ${quantile(ms, 0.5).toFixed(0)} ms, p99 ${quantile(ms, 0.99).toFixed(0)} ms ` +
            `(${first.count} anomalies; ${live} upstream requests while timed; rss ${rss.toFixed(0)} MB${first.needs ? `; ${first.needs}` : ''}; store: 3 days synced in ${syncedIn.toFixed(0)} s, copied to ${DAYS} in ${(filled - syncedIn).toFixed(0)} s)`,
        );
      } finally {
        await client.close();
        await server.close();
      }
    } finally {
      await rig.close();
    }
  }
}
