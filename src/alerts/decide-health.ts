import type { AlertCandidate } from '../domain/alerts.js';
import type { Days } from '../domain/published-days.js';
import { DATASETS } from '../history/store/datasets.js';
import type { HistoryStore } from '../history/store/history-store.js';
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

/** What a failed sync says of itself: how many requests failed, and the first few reasons (never a secret). */
export interface SyncFailure {
  failed: number;
  skipped: number;
  errors: string[];
}

/** `sync.failed`: a sync that did not store everything, once a day while syncs fail. */
export function syncFailedCandidate(failure: SyncFailure, days: Days): AlertCandidate {
  return {
    type: 'sync.failed',
    dedupKey: `sync.failed:organization:${formatDay(days.today)}`,
    data: {
      failed_requests: failure.failed,
      not_tried: failure.skipped,
      errors: failure.errors.slice(0, 5),
      next: 'what failed is fetched again by the next sync (org-analytics-mcp sync, or --sync)',
    },
    scope: {},
  };
}
