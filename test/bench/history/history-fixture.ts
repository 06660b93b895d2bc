import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { attachHistory, type RuntimeHistory } from '../../../src/history/serving/runtime-history.js';
import { createLogger } from '../../../src/logger.js';
import { startSimulator, type Simulator } from '../../../src/simulator/index.js';
import type { AnalyticsClient, ClientOptions } from '../../../src/upstream/client.js';
import { clientFor } from '../../helpers/client.js';
import { NOW } from '../../helpers/sim.js';

export const DAY_MS = 86_400_000;

/** A simulator, a client on its clock, and a history store (a SQLite file in a temporary directory, or PostgreSQL). */
export interface HistoryRig {
  sim: Simulator;
  client: AnalyticsClient;
  history: RuntimeHistory;
  dir: string;
  /** The SQLite file, if the store is one. */
  file?: string;
  close(): Promise<void>;
}

const quiet = createLogger(
  'warn',
  (t) => t,
  () => {},
);

let runs = 0;

export async function historyRig(options: {
  users: number;
  rateLimit: boolean;
  client?: Partial<ClientOptions>;
  now?: string | number;
  /** A store kept by an earlier run (BENCH_HISTORY_KEEP=1), used as it is and left in place. */
  file?: string;
}): Promise<HistoryRig> {
  // A distinct token per run: the PostgreSQL schema is named after the credential's fingerprint.
  const token = `bench-history-${process.pid}-${Date.now()}-${runs++}`;
  const sim = await startSimulator({
    users: options.users,
    now: options.now ?? NOW,
    rateLimit: options.rateLimit,
    token,
  });
  const client = clientFor(sim, options.client);
  const dir = mkdtempSync(join(tmpdir(), 'oam-bench-history-'));
  const file = options.file ?? join(dir, 'store', 'history.sqlite');
  const keep = options.file !== undefined || process.env.BENCH_HISTORY_KEEP === '1';
  const history = await attachHistory(client, { history: file, cacheDir: undefined, demo: false }, quiet);
  if (!history) throw new Error('the history store did not open');
  return {
    sim,
    client,
    history,
    dir,
    file,
    close: async () => {
      await history.close();
      await client.close();
      await sim.close();
      if (keep && !options.file) process.stderr.write(`  store kept: BENCH_HISTORY_FROM=${file}\n`);
      rmSync(keep ? join(dir, 'nothing') : dir, { recursive: true, force: true });
    },
  };
}

/**
 * The rig's stored blocks copied into a PostgreSQL store on a second client of the same simulator; `only`: which
 * datasets (spans are copied with theirs).
 */
export async function postgresCopy(rig: HistoryRig, url: string, only?: ReadonlySet<string>): Promise<HistoryRig> {
  const client = clientFor(rig.sim);
  const history = await attachHistory(client, { history: url, cacheDir: undefined, demo: false }, quiet);
  if (!history) throw new Error(`PostgreSQL at ${url} did not open`);
  const from = rig.history.source.store;
  // Every stored dataset (rollups and spans too); digests are written anew by \`put\`, in this store's numbering.
  const held = await from.db.selectFrom('history_blocks').select('dataset').distinct().execute();
  // Spans last: writing a day drops the spans over it.
  const spansLast = (d: string) => (d.startsWith('span:') ? 1 : 0);
  for (const { dataset } of held.sort((a, b) => spansLast(a.dataset) - spansLast(b.dataset))) {
    if (dataset.startsWith('digest:') || (only && !only.has(dataset.replace(/^span:/, '')))) continue;
    for (const b of await from.blocks(dataset, 0, 1_000_000)) {
      const items = await from.rows(dataset, b.start, b.end);
      await history.source.store.put([{ ...b, items }]);
    }
  }
  return {
    sim: rig.sim,
    client,
    history,
    dir: rig.dir,
    close: async () => {
      await history.close();
      const { default: pg } = await import('pg');
      const admin = new pg.Client({ connectionString: url });
      await admin.connect();
      await admin.query(`DROP SCHEMA IF EXISTS "org_analytics_${client.sender.credential}" CASCADE`);
      await admin.end();
      await client.close();
    },
  };
}
