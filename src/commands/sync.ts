import { randomUUID } from 'node:crypto';
import { existsSync, realpathSync } from 'node:fs';
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';
import { secretScrubber } from '../logger.js';
import type { Runtime } from '../runtime/runtime.js';
import type { RuntimeHistory } from '../history/serving/runtime-history.js';
import { duration } from '../format/text.js';
import { EXIT_FAILURE, stopSignal } from '../config/cli-options.js';
import { helpAsked, runOneShot, type OneShot } from './command-opening.js';
import { DEMO_SYNC, syncOnce } from '../history/sync/sync-run.js';
import { anomalyTable } from '../tools/insights/find-anomalies.js';
import type { Anomaly } from '../insights/anomaly-find.js';
import {
  afterStoredSync,
  deliverQueued,
  destinationsFor,
  queueAfterFailure,
  type AlertingTarget,
} from '../alerts/after-sync.js';

export const SYNC_HELP = `Usage: org-analytics-mcp sync [server options]

Fills the history store (--history; by default a SQLite file in the cache directory) with every day the
store lacks, newest first, then complete calendar months, and exits: 0 when done (or when another sync holds
the store), 1 when a request failed (what failed is fetched again next time), 2 on a usage error. Progress
goes to stderr. Run it from cron after the daily refresh (--refresh-hour, 03:00 UTC by default), e.g.

  15 4 * * *  ANALYTICS_API_TOKEN=... ANALYTICS_BASE_URL=... org-analytics-mcp sync

  --history WHERE        ANALYTICS_HISTORY         auto, a file path, or a postgres:// URL
  --history-days N       ANALYTICS_HISTORY_DAYS    days kept, newest first (default 90, at most 730)
  --history-months M     ANALYTICS_HISTORY_MONTHS  complete months kept as one block each (default 24)
  --sync-share SHARE     ANALYTICS_SYNC_SHARE      part of each documented rate used (default 0.8)

Server options: see org-analytics-mcp --help.
`;

const count = (n: number, noun: string, many = `${noun}s`) => `${n} ${n === 1 ? noun : many}`;

/**
 * The heap of the thread a sync runs in. A sync keeps one page per rate group and the sums of one share of a
 * block's identities alive (about 35 MB at 50,000 people), yet V8 lets an uncapped heap grow far ahead of its
 * collections; capped, the process stays small. A sync that outgrows it goes on uncapped (what was stored stays).
 */
export const SYNC_HEAP_MB = 64;
/** Its young generation: short-lived pages and parsed rows are collected sooner, for a few % more time. */
export const SYNC_YOUNG_MB = 8;

/** What the main thread tells the sync's thread. */
interface SyncThreadData {
  orgAnalyticsSync: { holder: string };
}

/**
 * Runs the command's sync in a thread of its own with a capped heap (the built binary, `entry`), the same
 * syncer (lock holder) if it must start again uncapped; Ctrl-C or a kill reaches it as a message. The exit
 * code is the thread's.
 */
export async function syncInThread(entry: string, argv: string[], write: (line: string) => void): Promise<number> {
  const data: SyncThreadData = { orgAnalyticsSync: { holder: randomUUID() } };
  const stop = stopSignal();
  try {
    for (const limits of [
      { maxOldGenerationSizeMb: SYNC_HEAP_MB, maxYoungGenerationSizeMb: SYNC_YOUNG_MB },
      undefined,
    ]) {
      const thread = new Worker(entry, { argv: ['sync', ...argv], workerData: data, resourceLimits: limits });
      const onStop = () => thread.postMessage('stop');
      stop.signal.addEventListener('abort', onStop);
      const { code, outgrew } = await new Promise<{ code: number; outgrew: boolean }>((resolve) => {
        let outgrew = false;
        thread.on('error', (error: Error & { code?: string }) => {
          if (error.code === 'ERR_WORKER_OUT_OF_MEMORY') outgrew = true;
          else write(`org-analytics-mcp sync: ${error.message}`);
        });
        thread.on('exit', (code) => resolve({ code, outgrew }));
      });
      stop.signal.removeEventListener('abort', onStop);
      if (!outgrew || !limits || stop.signal.aborted) return code;
      write(`org-analytics-mcp sync: the sync outgrew its ${SYNC_HEAP_MB} MB heap; going on without the cap`);
    }
    return EXIT_FAILURE;
  } finally {
    stop.release();
  }
}

/** In the sync's thread: the main thread's stop, as `stopSignal` gives it in a process of its own. */
function stopFromMainThread(): { signal: AbortSignal; release(): void } {
  const controller = new AbortController();
  const onMessage = (message: unknown) => {
    if (message === 'stop') controller.abort(new Error('interrupted'));
  };
  parentPort!.on('message', onMessage);
  return { signal: controller.signal, release: () => void parentPort!.off('message', onMessage) };
}

const SYNC = {
  name: 'sync',
  help: SYNC_HELP,
  history: {
    needs: (why) => `sync needs a history store, and ${why}`,
    unopened:
      'no history store: set --history (auto needs a cache directory), or see the log above for why it cannot be used',
  },
} satisfies OneShot;

/** `org-analytics-mcp sync`: one sync, then the exit code (usage errors throw UsageError: exit 2). */
export async function runSyncCommand(
  argv: string[],
  env: NodeJS.ProcessEnv,
  write: (line: string) => void = (line) => process.stderr.write(`${line}\n`),
): Promise<number> {
  // The built binary (through its bin link, too) runs the sync in a thread of its own; tsx, in development, here.
  const entry = process.argv[1] && existsSync(process.argv[1]) ? realpathSync(process.argv[1]) : '';
  if (isMainThread && /\.m?js$/.test(entry) && !helpAsked(argv)) return syncInThread(entry, argv, write);
  const thread = isMainThread ? undefined : (workerData as Partial<SyncThreadData>).orgAnalyticsSync;
  return runOneShot(
    SYNC,
    argv,
    env,
    ({ runtime, history, signal, say }) => syncCommandBody(runtime, history, signal, say, undefined, thread?.holder),
    { write, stop: thread ? stopFromMainThread : undefined },
  );
}

/**
 * One sync under the lock, its progress and outcome said line by line; the exit code. The anomalies it
 * publishes (new since the last sync) go to `print`, standard output: cron mails what a job prints.
 */
export async function syncCommandBody(
  runtime: Runtime,
  history: RuntimeHistory,
  signal: AbortSignal,
  say: (line: string) => void,
  print: (text: string) => void = (text) => process.stdout.write(text),
  holder?: string,
): Promise<number> {
  const started = Date.now();
  const settings = runtime.config.demo ? { ...runtime.config, ...DEMO_SYNC } : runtime.config;
  let fresh: Anomaly[] = [];
  const { client, config, log, pii, secrets, org } = runtime;
  const alerting: AlertingTarget = { client, config, log, history, pii, secrets, org };
  // A bad alerts file is refused before the sync starts, naming its problems.
  destinationsFor(alerting);
  let queued = 0;
  const outcome = await syncOnce(runtime.client, history.source, settings, {
    holder,
    signal,
    onProgress: (line) => say(line.text),
    // Decided and queued under the sync's lock: one syncer at a time decides.
    after: async () =>
      void ({ fresh, queued } = await afterStoredSync(alerting, signal, (error) =>
        say(`could not look for anomalies: ${error.message}`),
      )),
  }).catch(async (error: unknown) => {
    await queueAfterFailure(alerting, { error: error instanceof Error ? error.message : String(error) });
    await deliverQueued(alerting, signal);
    throw error;
  });
  if (outcome.ran && outcome.result.failed.length) queued += await queueAfterFailure(alerting, outcome.result);
  // The process exits next: a receiver's brief failure is retried here, within 30 s, rather than at the next sync.
  const delivery = await deliverQueued(alerting, signal, 30_000);
  if (queued || delivery?.delivered || delivery?.retried || delivery?.failed)
    say(
      `alerts: ${queued} queued; ${delivery?.delivered ?? 0} delivered, ${delivery?.retried ?? 0} to retry, ${delivery?.failed ?? 0} refused`,
    );
  if (fresh.length) {
    const scrub = secretScrubber(runtime.secrets);
    const text = `${count(fresh.length, 'new anomaly', 'new anomalies')} (org-analytics-mcp find_anomalies has the method):\n${anomalyTable(fresh)}\n`;
    print(runtime.pii.text(scrub(text)));
  }
  if (!outcome.ran) {
    say(outcome.reason);
    return 0;
  }
  const { result } = outcome;
  if (result.failed.length) {
    for (const f of result.failed.slice(0, 20)) say(`failed: ${f.dataset} ${f.days}: ${f.error}`);
    const skipped = result.skipped ? ` (and ${result.skipped} not tried: the upstream refused or was down)` : '';
    say(
      `${count(result.failed.length, 'request')} failed${skipped} after ${duration(Date.now() - started)}; run sync again to fetch them`,
    );
    return EXIT_FAILURE;
  }
  if (signal.aborted) {
    say('interrupted: what was stored stays, the next run resumes');
    return EXIT_FAILURE;
  }
  if (result.spans) say(`${count(result.spans, 'run')} of stored days or months summed, for long ranges`);
  say(
    `done in ${duration(Date.now() - started)}: ${count(result.blocks, 'block')} stored, ${count(result.requests, 'request')}`,
  );
  return 0;
}
