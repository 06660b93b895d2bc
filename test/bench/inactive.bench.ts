import { performance } from 'node:perf_hooks';
import { DATASETS } from '../../src/history/store/datasets.js';
import { syncOnce } from '../../src/history/sync/sync-run.js';
import { benchSizes, figures, mcpOn } from './adoption.bench.js';
import { historyRig, type HistoryRig } from './history/history-fixture.js';
import { quantile } from './history/history-queries.js';
import { replicate } from './history/history-replicate.js';

type Print = (line: string) => void;
type Row = Record<string, any>;
const DAYS = 90;
/** One identity in this many stops in the last RECENT days of the copied history. */
const STOPS = 20;
const RECENT = 45;

const idOf = (r: Row): string | undefined =>
  r.user_email ?? r.service_account_name ?? r.group_by_values?.user_info?.user_email;
const stops = (id: string) => [...id].reduce((h, c) => (h * 31 + c.charCodeAt(0)) >>> 0, 7) % STOPS === 0;

/**
 * A week synced, copied to 90 days, then one identity in 20 taken out of the last 45 days of every daily
 * dataset: people who stop, whose last active day find_inactive_people walks back through the daily lists for.
 */
async function fill(rig: HistoryRig): Promise<{ blocks: number; thinned: number }> {
  const outcome = await syncOnce(
    rig.client,
    rig.history.source,
    { historyDays: 7, historyMonths: 0, syncShare: 1 },
    {},
  );
  if (!outcome.ran || outcome.result.failed.length) throw new Error('the sync failed');
  const blocks = await replicate(rig, DAYS, 0);
  const store = rig.history.source.store;
  const { published, today } = rig.client.days();
  let thinned = 0;
  for (const dataset of DATASETS.filter((d) => d.grain === 'day')) {
    for (const b of await store.blocks(dataset.id, Math.min(published, today) - RECENT + 1, today)) {
      if (b.start !== b.end) continue;
      const rows = await store.rows(dataset.id, b.start, b.end);
      const kept = rows.filter((r) => !(idOf(r) && stops(idOf(r)!)));
      if (kept.length === rows.length) continue;
      await store.put([{ ...b, dataset: dataset.id, expires_at: null, items: kept }]);
      thinned++;
    }
  }
  return { blocks, thinned };
}

async function benchSize(print: Print, users: number, repeat: number): Promise<void> {
  const rig = await historyRig({ users, rateLimit: false });
  try {
    const t0 = performance.now();
    const { blocks, thinned } = await fill(rig);
    print(
      `  ${users.toLocaleString('en-US')} people: 7 days synced, ${blocks} blocks copied to ${DAYS} days, 1 in ${STOPS} ` +
        `identities taken out of the last ${RECENT} days (${thinned} blocks), in ${((performance.now() - t0) / 1000).toFixed(0)} s`,
    );
    const client = await mcpOn(rig, rig.client);
    for (const args of [{}, { inactive_days: 14, lookback_days: 60 }]) {
      const ms: number[] = [];
      let count = 0;
      let live = 0;
      for (let i = 0; i <= repeat; i++) {
        const before = rig.sim.requests().length;
        const t = performance.now();
        const r = await client.callTool({ name: 'find_inactive_people', arguments: args }, { timeout: 600_000 });
        if (r.isError) throw new Error(`find_inactive_people failed: ${JSON.stringify(r.content)}`);
        // The first call reads the file into the page cache: left out.
        if (i > 0) ms.push(performance.now() - t);
        count = (r.structuredContent as { count: number }).count;
        live += rig.sim.requests().length - before;
      }
      print(
        `    ${JSON.stringify(args).padEnd(40)} n=${ms.length} ${figures(ms)} (goal p99 <= 1000 ms: ` +
          `${quantile(ms, 0.99) <= 1000 ? 'met' : 'not met'}); ${count} inactive; upstream requests ${live} (budget overrides, read live)`,
      );
    }
    await client.close();
  } finally {
    await rig.close();
  }
}

/**
 * Issue 24's figures for find_inactive_people: p50 and p99 from the store (SQLite), at 10,000 people by
 * default; `BENCH_INACTIVE_SIZES=10000,50000` (or BENCH_HISTORY_SIZES) adds 50,000.
 */
export async function benchInactive(print: Print): Promise<void> {
  const sizes = benchSizes('BENCH_INACTIVE_SIZES');
  const repeat = Number(process.env.BENCH_INACTIVE_REPEAT ?? 10);
  print('find_inactive_people from the history store (SQLite), in process, through the protocol:');
  for (const users of sizes) await benchSize(print, users, repeat);
}
