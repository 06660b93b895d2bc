import { execFile } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { RATE_LIMITS, type RateGroup } from '../../../src/contract/limits.js';
import { syncOnce, type SyncSettings } from '../../../src/history/sync/sync-run.js';
import type { SyncResult } from '../../../src/history/sync/sync.js';
import type { Simulator } from '../../../src/simulator/index.js';
import type { HistoryRig } from './history-fixture.js';

export const GROUPS: readonly RateGroup[] = ['general', 'credit-usage', 'cost-analytics'];

export interface Synced {
  result: SyncResult;
  ms: number;
  /** Requests per rate group, as the simulator logged them. */
  requests: Record<RateGroup, number>;
  tooMany: number;
  peakRssMb: number;
}

export const groupOfPath = (path: string): RateGroup =>
  path.includes('credit-usage') ? 'credit-usage' : path.includes('cost-analytics') ? 'cost-analytics' : 'general';

/** One sync, counted at the simulator, with the peak RSS sampled every 50 ms while it runs. */
export async function timedSync(rig: HistoryRig, settings: Partial<SyncSettings>, signal?: AbortSignal) {
  rig.sim.clearRequests();
  let peak = process.memoryUsage.rss();
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 50);
  const t0 = performance.now();
  try {
    const outcome = await syncOnce(
      rig.client,
      rig.history.source,
      { historyDays: 90, historyMonths: 0, syncShare: 0.8, ...settings },
      { signal },
    );
    if (!outcome.ran) throw new Error(outcome.reason);
    const { requests, tooMany } = counted(rig.sim);
    return {
      result: outcome.result,
      ms: performance.now() - t0,
      requests,
      tooMany,
      peakRssMb: Math.max(peak, process.memoryUsage.rss()) / 2 ** 20,
    } satisfies Synced;
  } finally {
    clearInterval(sampler);
  }
}

/** Minutes a group needs for its requests at a share of its documented rate. */
export const minutesAt = (group: RateGroup, requests: number, share: number) =>
  requests / (RATE_LIMITS[group].perMinute * share);

/** Bytes of the SQLite file with its WAL and shared memory. */
export function bytesOnDisk(file: string): number {
  const dir = join(file, '..');
  return readdirSync(dir)
    .filter((f) => f.startsWith('history.sqlite'))
    .reduce((n, f) => n + statSync(join(dir, f)).size, 0);
}

export function duration(minutes: number): string {
  if (minutes < 1) return `${(minutes * 60).toFixed(0)} s`;
  if (minutes < 120) return `${minutes.toFixed(1)} min`;
  return `${(minutes / 60).toFixed(1)} h`;
}

const CHILD = fileURLToPath(new URL('./history-sync-child.ts', import.meta.url));
/** The child bundled as the server is (dist/), one level below package.json as dist/cli.js, so that its RSS is not tsx's besides the sync's. */
const BUNDLE = fileURLToPath(new URL('../../../node_modules/.bench-history-sync-child.mjs', import.meta.url));
let bundled: Promise<void> | undefined;

function bundle(): Promise<void> {
  return (bundled ??= import('esbuild').then(async ({ build }) => {
    await build({
      entryPoints: [CHILD],
      outfile: BUNDLE,
      bundle: true,
      platform: 'node',
      target: 'node20',
      format: 'esm',
      external: ['better-sqlite3', 'pg-native', '@napi-rs/keyring'],
      banner: {
        js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
      },
      logLevel: 'warning',
    });
  }));
}

/** Requests per group and 429s in the simulator's log. */
function counted(sim: Simulator) {
  const requests = { general: 0, 'credit-usage': 0, 'cost-analytics': 0 } as Record<RateGroup, number>;
  let tooMany = 0;
  for (const r of sim.requests()) {
    if (!r.path.startsWith('/analytics/')) continue;
    requests[groupOfPath(r.path)]++;
    if (r.status === 429) tooMany++;
  }
  return { requests, tooMany };
}

/**
 * One sync (limits lifted) in a child process, bundled as the server is, so that its peak RSS is the sync's
 * own; the simulator answers from this process and counts the requests.
 */
export async function childSync(rig: HistoryRig, settings: { historyDays: number; historyMonths: number }) {
  rig.sim.clearRequests();
  const job = { url: rig.sim.url, token: rig.sim.token, now: rig.sim.clock.now(), store: rig.file!, ...settings };
  await bundle();
  const t0 = performance.now();
  const out = await new Promise<string>((resolve, reject) => {
    execFile(
      process.execPath,
      [BUNDLE, JSON.stringify(job)],
      { maxBuffer: 64 * 2 ** 20, timeout: 3 * 3_600_000 },
      (error, stdout, stderr) => (error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve(stdout)),
    );
  });
  const ms = performance.now() - t0;
  // The sync's thread prints its outcome, then the main thread the process's peak RSS.
  const [thread, main] = out
    .trim()
    .split('\n')
    .slice(-2)
    .map((line) => JSON.parse(line));
  const child = { ...thread, ...main } as {
    outcome: { ran: true; result: SyncResult } | { ran: false; reason: string };
    loadedRssMb: number;
    peakRssMb: number;
  };
  if (!child.outcome.ran) throw new Error(child.outcome.reason);
  return {
    result: child.outcome.result,
    ms,
    ...counted(rig.sim),
    peakRssMb: child.peakRssMb,
    loadedRssMb: child.loadedRssMb,
  } satisfies Synced & { loadedRssMb: number };
}
