import Bottleneck from 'bottleneck';
import type { RateGroup } from '../contract/limits.js';
import type { AnalyticsClient } from '../upstream/client.js';
import type { HistorySource } from './history-source.js';
import { planSync, type PlanOptions, type SyncTask } from './sync-plan.js';
import { SyncProgress, type ProgressLine } from './sync-progress.js';

export interface SyncOptions extends PlanOptions {
  /** The part of each documented rate the sync may use (--sync-share, default 0.8). */
  share: number;
  signal?: AbortSignal;
  /** A line of progress (stderr): days done of total, requests, and the time left. */
  onProgress?: (line: ProgressLine) => void;
}

export interface SyncResult {
  blocks: number;
  requests: number;
  failed: Array<{ dataset: string; days: string; error: string }>;
  byGroup: Record<string, { blocks: number; requests: number; ms: number }>;
}

const DAY_FORMAT = (d: number) => new Date(d * 86_400_000).toISOString().slice(0, 10);

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
  const result: SyncResult = { blocks: 0, requests: 0, failed: [], byGroup: {} };
  await Promise.all(
    [...plan].map(async ([group, tasks]) => {
      const pace = new Bottleneck({
        maxConcurrent: 1,
        minTime: Math.ceil(60_000 / (client.limiters.config[group].perMinute * options.share)),
      });
      const started = Date.now();
      const own = (result.byGroup[group] = { blocks: 0, requests: 0, ms: 0 });
      for (const task of tasks) {
        if (options.signal?.aborted) break;
        const requests = await runTask(client, source, task, group, pace, options, result, own);
        progress.done(group, task, requests);
      }
      own.ms = Date.now() - started;
      await pace.stop({ dropWaitingJobs: true });
    }),
  );
  progress.finish();
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
): Promise<number> {
  let requests = 0;
  try {
    const answer = await client.list(
      task.dataset.listing as never,
      { ...task.dataset.args, days: task.days } as never,
      {
        signal: options.signal,
        priority: 'background',
        liveOnly: true,
        caps: { maxPages: Number.POSITIVE_INFINITY, maxRecords: Number.POSITIVE_INFINITY },
        beforeRequest: () => {
          requests++;
          return pace.schedule(() => Promise.resolve());
        },
      },
    );
    const blocks = source.blocksOf(
      task.dataset,
      task.days,
      answer.data as Array<Record<string, unknown>>,
      answer.freshness.fetched_at,
    );
    await source.store.put(blocks);
    own.blocks += blocks.length;
    result.blocks += blocks.length;
  } catch (error) {
    if (options.signal?.aborted) return requests;
    result.failed.push({
      dataset: task.dataset.id,
      days: `${DAY_FORMAT(task.days.start)}..${DAY_FORMAT(task.days.end)}`,
      error: (error as Error).message,
    });
  } finally {
    own.requests += requests;
    result.requests += requests;
  }
  return requests;
}
