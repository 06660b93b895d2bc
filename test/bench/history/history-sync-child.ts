// One sync in a process of its own, so that its peak RSS is the sync's alone (the simulator stays in the
// bench's process). Run bundled (see childSync) as `node history-sync-child.mjs '<json>'`. As the sync command
// does, the sync runs in a thread of its own with a capped heap (syncInThread): the thread prints its outcome as
// one line of JSON, then the main thread the process's peak RSS as another.
import { fileURLToPath } from 'node:url';
import { getHeapStatistics, writeHeapSnapshot } from 'node:v8';
import { join } from 'node:path';
import { isMainThread, workerData } from 'node:worker_threads';
import { configSchema } from '../../../src/config/config.js';
import { syncInThread } from '../../../src/commands/sync.js';
import { publishAnomalies } from '../../../src/insights/anomaly-feed.js';
import { attachHistory } from '../../../src/history/serving/runtime-history.js';
import { syncOnce } from '../../../src/history/sync/sync-run.js';
import { createLogger } from '../../../src/logger.js';
import type { Simulator } from '../../../src/simulator/index.js';
import { clientFor } from '../../helpers/client.js';

export interface ChildJob {
  url: string;
  token: string;
  now: number;
  store: string;
  historyDays: number;
  historyMonths: number;
}

if (isMainThread) {
  const code = await syncInThread(fileURLToPath(import.meta.url), [process.argv[2]!], (line) =>
    process.stderr.write(`${line}\n`),
  );
  process.stdout.write(`${JSON.stringify({ code, peakRssMb: process.resourceUsage().maxRSS / 1024 })}\n`);
} else await syncHere();

async function syncHere(): Promise<void> {
  const job = JSON.parse(process.argv.at(-1)!) as ChildJob;
  const snapshots = heapSnapshots();
  const startRssMb = process.memoryUsage.rss() / 2 ** 20;
  // The client needs only the simulator's address, token and clock.
  const sim = { url: job.url, token: job.token, clock: { now: () => job.now } } as unknown as Simulator;
  const client = clientFor(sim);
  const log = createLogger(
    'warn',
    (t) => t,
    (line) => process.stderr.write(`${line}\n`),
  );
  const history = await attachHistory(client, { history: job.store, cacheDir: undefined, demo: false }, log);
  if (!history) throw new Error('the history store did not open');
  const loadedRssMb = process.memoryUsage.rss() / 2 ** 20;
  const config = configSchema.parse({ token: job.token, baseUrl: job.url });
  const outcome = await syncOnce(
    client,
    history.source,
    { historyDays: job.historyDays, historyMonths: job.historyMonths, syncShare: 0.8 },
    {
      // One syncer across the capped thread and the uncapped one that may follow it, as the sync command's.
      holder: (workerData as { orgAnalyticsSync: { holder: string } }).orgAnalyticsSync.holder,
      // The anomalies it found published after it, as the sync command does.
      after: async () =>
        void (await publishAnomalies(
          client,
          config,
          history.source.store,
          new AbortController().signal,
          history.source.digest,
        )),
    },
  );
  snapshots?.stop();
  await history.close();
  await client.close();
  process.stdout.write(`${JSON.stringify({ outcome, startRssMb, loadedRssMb })}\n`);
}

/**
 * BENCH_SYNC_HEAP_SNAPSHOTS=<dir>: heap snapshots of the sync's thread while its heap is above 40 MB, one every
 * 15 s at most (8 in all), to see what a sync keeps alive.
 */
function heapSnapshots(): { stop(): void } | undefined {
  const dir = process.env.BENCH_SYNC_HEAP_SNAPSHOTS;
  if (!dir) return undefined;
  let taken = 0;
  let last = 0;
  const timer = setInterval(() => {
    if (taken >= 8 || Date.now() - last < 15_000 || getHeapStatistics().used_heap_size < 40 * 2 ** 20) return;
    const file = writeHeapSnapshot(join(dir, `sync-${Date.now()}.heapsnapshot`));
    process.stderr.write(`heap snapshot: ${file}\n`);
    taken++;
    last = Date.now();
  }, 250);
  return { stop: () => clearInterval(timer) };
}
