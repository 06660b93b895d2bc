import { loadConfig } from '../config/config.js';
import { secretScrubber } from '../logger.js';
import { createRuntime, type Runtime } from '../runtime.js';
import type { RuntimeHistory } from './runtime-history.js';
import { duration } from '../format/text.js';
import { EXIT_FAILURE, UsageError, helpPointer, stopSignal } from '../config/cli-options.js';
import { resolveCacheDir } from '../upstream/cache/cache-dir.js';
import { DEMO_SYNC, syncOnce } from './sync-run.js';
import { publishAnomalies } from '../warm/anomaly-feed.js';
import { anomalyTable } from '../tools/insights/find-anomalies.js';
import type { Anomaly } from '../tools/insights/anomaly-find.js';

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

/** `org-analytics-mcp sync`: one sync, then the exit code (usage errors throw UsageError: exit 2). */
export async function runSyncCommand(
  argv: string[],
  env: NodeJS.ProcessEnv,
  write: (line: string) => void = (line) => process.stderr.write(`${line}\n`),
): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(SYNC_HELP);
    return 0;
  }
  const config = loadConfig(argv, env);
  // Nothing to fill: a command line that cannot work, not a failure while running.
  const none = config.history.trim().toLowerCase() === 'none';
  if (none || (config.history.trim().toLowerCase() === 'auto' && !resolveCacheDir(config.cacheDir)))
    throw new UsageError(
      `sync needs a history store, and ${none ? '--history none keeps none' : '--history auto keeps none without a cache directory (ANALYTICS_CACHE_DIR=none)'}: give --history a file path or a postgres:// URL.\n${helpPointer('org-analytics-mcp sync')}`,
    );
  const runtime = await createRuntime(config);
  const scrub = secretScrubber(runtime.secrets);
  const say = (line: string) => write(`org-analytics-mcp sync: ${runtime.pii.text(scrub(line))}`);
  const stop = stopSignal();
  try {
    const history = await runtime.history?.open();
    if (!history) {
      say(
        'no history store: set --history (auto needs a cache directory), or see the log above for why it cannot be used',
      );
      return EXIT_FAILURE;
    }
    return await syncCommandBody(runtime, history, stop.signal, say);
  } finally {
    stop.release();
    await runtime.close();
  }
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
): Promise<number> {
  const started = Date.now();
  const settings = runtime.config.demo ? { ...runtime.config, ...DEMO_SYNC } : runtime.config;
  let fresh: Anomaly[] = [];
  const outcome = await syncOnce(runtime.client, history.source, settings, {
    signal,
    onProgress: (line) => say(line.text),
    after: async () => {
      fresh = await publishAnomalies(runtime.client, runtime.config, history.source.store, signal).catch(
        (error: Error) => (say(`could not look for anomalies: ${error.message}`), []),
      );
    },
  });
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
  say(
    `done in ${duration(Date.now() - started)}: ${count(result.blocks, 'block')} stored, ${count(result.requests, 'request')}`,
  );
  return 0;
}
