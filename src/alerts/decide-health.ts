import type { AlertCandidate } from '../domain/alerts.js';
import type { Days } from '../domain/published-days.js';
import { DATASETS } from '../history/store/datasets.js';
import type { HistoryStore } from '../history/store/history-store.js';
import type { SyncResult } from '../history/sync/sync.js';
import { formatDay } from '../util/utc-date.js';

/** Days the store may lag the latest published day before the data counts as not arriving. */
export const STALE_AFTER_DAYS = 2;

const DAILY = DATASETS.filter((d) => d.grain === 'day').map((d) => d.id);

/** The latest day every daily dataset is stored through; undefined when one has no day at all. */
export async function storedThrough(store: HistoryStore): Promise<number | undefined> {
  const rows = await store.db
    .selectFrom('history_blocks')
    .select(['dataset', (eb) => eb.fn.max<number>('end_day').as('last')])
    .where('grain', '=', 'day')
    .where('dataset', 'in', DAILY)
    .groupBy('dataset')
    .execute();
  if (rows.length < DAILY.length) return undefined;
  return Math.min(...rows.map((r) => Number(r.last)));
}

/**
 * `data.stale`: the store's latest day more than 2 days behind the latest published day (or no day stored),
 * once a day while it lasts.
 */
export async function staleCandidate(store: HistoryStore, days: Days): Promise<AlertCandidate | undefined> {
  const through = await storedThrough(store);
  if (through !== undefined && days.published - through <= STALE_AFTER_DAYS) return undefined;
  return {
    type: 'data.stale',
    dedupKey: `data.stale:organization:${formatDay(days.today)}`,
    data: {
      stored_through: through === undefined ? null : formatDay(through),
      latest_published: formatDay(days.published),
      days_behind: through === undefined ? null : days.published - through,
    },
    scope: {},
  };
}

/** What a failed sync says of itself: the requests that failed and those not tried, or the error it threw. */
export type SyncFailure = Pick<SyncResult, 'failed' | 'skipped'> | { error: string };

/** `sync.failed`: a sync that did not store everything, once a day while syncs fail. */
export function syncFailedCandidate(failure: SyncFailure, days: Days): AlertCandidate {
  const data =
    'error' in failure
      ? { failed_requests: 0, not_tried: 0, errors: [failure.error] }
      : {
          failed_requests: failure.failed.length,
          not_tried: failure.skipped,
          errors: failure.failed.slice(0, 5).map((f) => `${f.dataset} ${f.days}: ${f.error}`),
        };
  return {
    type: 'sync.failed',
    dedupKey: `sync.failed:organization:${formatDay(days.today)}`,
    data: { ...data, next: 'what failed is fetched again by the next sync (org-analytics-mcp sync, or --sync)' },
    scope: {},
  };
}
