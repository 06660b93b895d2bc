// One sync in a process of its own, so that its peak RSS is the sync's alone (the simulator stays in the
// bench's process). Run bundled (see childSync) as `node history-sync-child.mjs '<json>'`; prints one line of JSON.
import { attachHistory } from '../../../src/history/runtime-history.js';
import { syncOnce } from '../../../src/history/sync-run.js';
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

const job = JSON.parse(process.argv[2]!) as ChildJob;
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
const outcome = await syncOnce(
  client,
  history.source,
  { historyDays: job.historyDays, historyMonths: job.historyMonths, syncShare: 0.8 },
  {},
);
await history.close();
await client.close();
process.stdout.write(
  `${JSON.stringify({
    outcome,
    startRssMb,
    loadedRssMb,
    peakRssMb: process.resourceUsage().maxRSS / 1024,
  })}\n`,
);
