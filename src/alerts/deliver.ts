import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { Logger } from '../logger.js';
import type { HistoryStore } from '../history/store/history-store.js';
import {
  claimDue,
  nextDue,
  pruneOutbox,
  queuedIds,
  releaseDeadClaims,
  settle,
  type ClaimOptions,
} from '../history/store/outbox/outbox-claim.js';
import type { OutboxAlert } from '../history/store/outbox/outbox-rows.js';
import type { Destination } from './destinations.js';
import { DEFAULT_BACKOFF, settlementOf, type Backoff } from './outcome.js';
import { sendUnit, unitsOf, type Unit } from './delivery-units.js';

export interface DeliverOptions {
  log: Logger;
  /** Every queued alert at once, whatever its backoff (`alerts deliver`); else those due. */
  all?: boolean;
  backoff?: Backoff;
  /** How long a claim holds before another process may deliver the rows (a killed holder's). */
  leaseMs?: number;
  /** Rows claimed at a time, and messages in flight at a time. */
  batch?: number;
  concurrency?: number;
  signal?: AbortSignal;
  /**
   * A process about to exit (`sync` from cron): waits for retries due within this long and tries them, so that a
   * receiver's brief failure is retried within 30 s there too. A server's loop needs none.
   */
  lingerMs?: number;
  /** Each message's outcome, as it settles. */
  onOutcome?: (outcome: DeliveryOutcome) => void;
}

export interface DeliveryOutcome {
  destination: string;
  alerts: string[];
  outcome: 'delivered' | 'retry' | 'failed';
  error?: string;
}

export interface DeliveryReport {
  delivered: number;
  retried: number;
  failed: number;
}

/** This process's name on its claims: `<host>/<pid>/<random>` (see releaseDeadClaims). */
const HOLDER = `${hostname()}/${process.pid}/${randomUUID().slice(0, 8)}`;

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/** Settled rows are kept 90 days (dedup keys name at most a month), pruned at most hourly by each process. */
const KEEP_MS = 90 * 86_400_000;
let prunedAt = 0;

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });

/** Runs `work` on each item, at most `n` at a time. */
async function inParallel<T>(items: readonly T[], n: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await work(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(n, items.length) }, worker));
}

/**
 * Delivers what is due of the outbox to the destinations configured, and answers how it went. Rows are claimed
 * a batch at a time under a lease, so that replicas sharing a store deliver each once; a process killed before it
 * settles leaves them to the next (at once on this host, after the lease elsewhere). At least once: a row is
 * settled only after its receiver answered.
 */
export async function deliverDue(
  store: HistoryStore,
  destinations: readonly Destination[],
  opts: DeliverOptions,
): Promise<DeliveryReport> {
  const report: DeliveryReport = { delivered: 0, retried: 0, failed: 0 };
  const byName = new Map(destinations.map((d) => [d.name, d]));
  const names = [...byName.keys()];
  if (names.length === 0) return report;
  // 32 rows at 8 in flight, 10 s each at worst: 40 s, well within the lease, so no other process takes them meanwhile.
  const batch = opts.batch ?? 32;
  const leaseMs = opts.leaseMs ?? 120_000;
  const started = Date.now();
  await releaseDeadClaims(store, hostname(), started, alive);
  if (started - prunedAt > 3600_000) {
    prunedAt = started;
    await pruneOutbox(store, started - KEEP_MS);
  }
  // `all`: the rows queued now, once each; else what is due until nothing is (a retry waits its backoff).
  const pending = opts.all ? await queuedIds(store, names) : undefined;
  const claimNext = (): Promise<OutboxAlert[]> => {
    const base: ClaimOptions = { holder: HOLDER, now: Date.now(), leaseMs, limit: batch, destinations: names };
    if (!pending) return claimDue(store, base);
    const ids = pending.splice(0, batch);
    return ids.length ? claimDue(store, { ...base, ids, all: true }) : Promise.resolve([]);
  };
  for (;;) {
    if (opts.signal?.aborted) break;
    const rows = await claimNext();
    if (rows.length === 0 && !pending?.length) {
      const next = opts.lingerMs ? await nextDue(store, names) : undefined;
      if (next === undefined || next > started + opts.lingerMs!) break;
      // At least a second: a row due but leased to another process is not ours to spin on.
      await sleep(Math.max(1000, next - Date.now()), opts.signal);
      continue;
    }
    const units = unitsOf(rows, byName);
    await inParallel(units, opts.concurrency ?? 8, (unit) => deliverUnit(store, unit, opts, report));
  }
  return report;
}

async function deliverUnit(store: HistoryStore, unit: Unit, opts: DeliverOptions, report: DeliveryReport) {
  const answer = await sendUnit(unit).catch((error: unknown) =>
    error instanceof Error ? error : new Error(String(error)),
  );
  const now = Date.now();
  // The oldest alert of a message decides when it gives up.
  const first = unit.alerts.reduce((a, b) => (a.createdAt <= b.createdAt ? a : b));
  const how = settlementOf(answer, first, now, opts.backoff ?? DEFAULT_BACKOFF);
  const ids = unit.alerts.map((a) => a.id);
  await settle(store, ids, how, now);
  const n = ids.length;
  const destination = unit.destination.name;
  if (how.outcome === 'delivered') report.delivered += n;
  else if (how.outcome === 'retry') {
    report.retried += n;
    opts.log.info('an alert was not delivered; it is tried again', { destination, alerts: ids, error: how.error });
  } else {
    report.failed += n;
    opts.log.warn('an alert was refused: it is not sent again (fix the destination, then alerts test)', {
      destination,
      alerts: ids,
      error: how.error,
    });
  }
  opts.onOutcome?.({ destination, alerts: ids, ...how });
}
