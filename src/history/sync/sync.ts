import Bottleneck from 'bottleneck';
import type { RateGroup } from '../../contract/limits.js';
import type { AnalyticsClient } from '../../upstream/client.js';
import { abortError } from '../../upstream/transport/deadline.js';
import type { HistorySource } from '../serving/history-source.js';
import { planSync, type PlanOptions, type SyncTask } from './sync-plan.js';
import { SyncProgress, type ProgressLine } from './sync-progress.js';

export interface SyncOptions extends PlanOptions {
  /** The part of each documented rate the sync may use (--sync-share, default 0.8). */
  share: number;
  signal?: AbortSignal;
  /** A line of progress (stderr): blocks done of total, requests, and the time left. */
  onProgress?: (line: ProgressLine) => void;
}

export interface SyncResult {
  blocks: number;
  requests: number;
  failed: Array<{ dataset: string; days: string; error: string }>;
  /** Requests not tried because the upstream refused the credential or was down: the next run makes them. */
  skipped: number;
  /** Per rate group; `firstRequests`: those of its first tasks (at the full rate), the requests before the rest. */
  byGroup: Record<string, { blocks: number; requests: number; ms: number; firstRequests: number }>;
  /** Ms from the start until the questions asked most answered from the store (sync-progress.ts); unset: not in this run. */
  answerableMs?: number;
  /** Runs of stored days or months summed after the sync (see derived/spans.ts). */
  spans: number;
}

const DAY_FORMAT = (d: number) => new Date(d * 86_400_000).toISOString().slice(0, 10);
/** Nothing else can succeed after these: the whole sync stops. */
const FATAL = new Set(['unauthenticated', 'login_required', 'permission_denied']);
/** The upstream is down for a group after this many failures of these kinds in a row: its rest waits for the next run. */
const DOWN = new Set(['unavailable', 'timeout']);
const DOWN_AFTER = 3;

/** Waits for the sync's own pace (its share of the rate), or stops waiting when the sync is interrupted. */
function paced(pace: Bottleneck, signal: AbortSignal | undefined): Promise<void> {
  const turn = pace.schedule(() => Promise.resolve());
  if (!signal) return turn;
  return new Promise<void>((resolve, reject) => {
    const stop = () => reject(abortError(signal));
    if (signal.aborted) return stop();
    signal.addEventListener('abort', stop, { once: true });
    turn.then(resolve, reject).finally(() => signal.removeEventListener('abort', stop));
  });
}

/**
 * Fetches what the store lacks, each rate group side by side at its share of the documented rate, at
 * background priority (interactive calls go first). Each request's days are stored in one transaction
 * once all of its pages are in; a failed one is left for the next run.
 */
export async function runSync(
  client: AnalyticsClient,
  source: HistorySource,
  options: SyncOptions,
): Promise<SyncResult> {
  const plan = await planSync(source.store, client.days(), client.now(), options);
  const progress = new SyncProgress(
    plan,
    options.onProgress,
    (g) => client.limiters.config[g].perMinute * options.share,
  );
  const result: SyncResult = { blocks: 0, requests: 0, failed: [], skipped: 0, byGroup: {}, spans: 0 };
  let fatal = false;
  await Promise.all(
    [...plan].map(async ([group, tasks]) => {
      // The first tasks at the full rate (interactive calls still go first): until they are in, the questions they
      // answer are asked live, at the same cost. The rest at the sync's share.
      const minTime = (share: number) => Math.ceil(60_000 / (client.limiters.config[group].perMinute * share));
      const pace = new Bottleneck({ maxConcurrent: 1, minTime: minTime(tasks[0]?.first ? 1 : options.share) });
      const started = Date.now();
      const own = (result.byGroup[group] = { blocks: 0, requests: 0, ms: 0, firstRequests: 0 });
      let down = 0;
      for (const [i, task] of tasks.entries()) {
        if (options.signal?.aborted) break;
        if (i > 0 && tasks[i - 1]!.first && !task.first) pace.updateSettings({ minTime: minTime(options.share) });
        if (fatal || down >= DOWN_AFTER) {
          result.skipped += tasks.length - i;
          break;
        }
        const outcome = await runTask(client, source, task, group, pace, options, result, own);
        if (task.first) own.firstRequests = own.requests;
        progress.done(group, task, outcome.requests, outcome.stored);
        down = outcome.error && DOWN.has(outcome.error) ? down + 1 : 0;
        if (outcome.error && FATAL.has(outcome.error)) fatal = true;
      }
      own.ms = Date.now() - started;
      await pace.stop({ dropWaitingJobs: true });
    }),
  );
  progress.finish(result.failed.length);
  result.answerableMs = progress.answerableMs;
  return result;
}

async function runTask(
  client: AnalyticsClient,
  source: HistorySource,
  task: SyncTask,
  group: RateGroup,
  pace: Bottleneck,
  options: SyncOptions,
  result: SyncResult,
  own: { blocks: number; requests: number },
): Promise<{ requests: number; stored: number; error?: string }> {
  let requests = 0;
  // Each page is staged in the store as it arrives: a sync holds one page at a time, whatever the size.
  const staged = source.stager(task.dataset, task.days);
  try {
    await staged.clear();
    const answer = await client.list(
      task.dataset.listing as never,
      { ...task.dataset.args, days: task.days } as never,
      {
        signal: options.signal,
        priority: 'background',
        liveOnly: true,
        uncached: true,
        onPage: (items) => staged.add(items as Array<Record<string, unknown>>),
        caps: { maxPages: Number.POSITIVE_INFINITY, maxRecords: Number.POSITIVE_INFINITY },
        beforeRequest: async () => {
          await paced(pace, options.signal);
          requests++;
        },
      },
    );
    // Days and months stored, all of them in one transaction; the rollups written with them are not counted apart.
    const stored = await staged.commit(answer.freshness.fetched_at);
    own.blocks += stored;
    result.blocks += stored;
    return { requests, stored };
  } catch (error) {
    await staged.clear().catch(() => {});
    if (options.signal?.aborted) return { requests, stored: 0 };
    result.failed.push({
      dataset: task.dataset.id,
      days: `${DAY_FORMAT(task.days.start)}..${DAY_FORMAT(task.days.end)}`,
      error: (error as Error).message,
    });
    return { requests, stored: 0, error: (error as { kind?: string }).kind ?? 'other' };
  } finally {
    own.requests += requests;
    result.requests += requests;
  }
}
