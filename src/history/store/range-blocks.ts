import type { Kysely } from 'kysely';
import { resolveNamedRange, type DayRange, type NamedRange } from '../../domain/dates.js';
import type { Days } from '../../domain/published-days.js';
import { costAnalytics } from '../../upstream/endpoints/cost-analytics.js';
import { creditUsageByUser } from '../../upstream/endpoints/credit-usage-by-user.js';
import { userActivity } from '../../upstream/endpoints/user-activity.js';
import { rangeId, rollupId, spanId } from './block-ids.js';
import type { Dataset } from './datasets.js';
import type { HistoryStore } from './history-store.js';
import { clear } from './store-rows.js';
import type { HistoryTables } from './store-tables.js';

type Db = Kysely<HistoryTables>;

/**
 * Range blocks: the trailing 7, 30 and 90 days of the questions asked most (user activity, credits and cost by
 * user), each fetched as one range request before any day, so that a new install answers them from the store
 * within minutes rather than once every day is in. A range block is its window's rows as the upstream answers
 * that range, under a dataset of its own (`range:…`): never taken for a day by the planner, the digests, export
 * or adoption. It expires with its newest day, and the trailing span summed from the days replaces it once they
 * are in (derived/trailing-spans.ts).
 */
export interface RangeDataset extends Dataset {
  per: 'range';
  /** The dataset of days whose days make it needless once they are all in. */
  days: string;
  /** The trailing span that replaces it (the same window, summed from those days). */
  span: string;
}

/** The trailing windows fetched as range blocks, shortest first: the first answerable soonest. */
export const RANGE_WINDOWS: readonly NamedRange[] = ['last_7_days', 'last_30_days', 'last_90_days'];

const range = (id: string, fields: Omit<RangeDataset, 'id' | 'grain' | 'per' | 'identities'>): RangeDataset => ({
  id: rangeId(id),
  grain: 'day',
  per: 'range',
  identities: true,
  ...fields,
});

export const RANGES: readonly RangeDataset[] = [
  range('user-activity', { listing: userActivity, args: {}, days: 'user-activity', span: spanId('user-activity') }),
  // Per identity, as the credit question is asked by default (no day, no model): the fewest pages.
  range('credits-by-user', {
    listing: creditUsageByUser,
    args: { by_date: false, by_model: false },
    days: 'credits-by-date-model',
    span: spanId('credits-by-date-model'),
  }),
  range('cost-by-user', {
    listing: costAnalytics,
    args: {
      group_by_keys: ['COST_ANALYTICS_GROUP_BY_USER'],
      granularity: 'COST_ANALYTICS_TIME_GRANULARITY_TOTAL',
    },
    days: 'cost-by-day',
    span: spanId(rollupId('cost-by-day', 'user')),
  }),
];

export function rangeById(id: string): RangeDataset {
  const found = RANGES.find((r) => r.id === id);
  if (!found) throw new Error(`unknown range dataset ${id}`);
  return found;
}

/**
 * The range blocks a sync fetches, shortest window first: each window that lies within the days the sync keeps
 * (`from`: the first day it keeps of the dataset), that no unexpired range block holds, and whose days the store
 * still lacks. The newest published day, and days due to be fetched again, are left out of that test: a daily
 * sync fetches them first, so a store that holds the rest sums the span as soon as they are in.
 */
export async function rangeTasks(
  store: HistoryStore,
  days: Days,
  now: number,
  from: (dataset: Dataset) => number,
): Promise<Array<{ dataset: RangeDataset; days: DayRange }>> {
  const tasks: Array<{ dataset: RangeDataset; days: DayRange }> = [];
  for (const name of RANGE_WINDOWS)
    for (const dataset of RANGES) {
      // By the listing's own date rules: credit usage's windows end today.
      const window = resolveNamedRange(name, dataset.listing.dates.rules, days);
      if (window.start < from(dataset)) continue;
      const held = await store.blocks(dataset.id, window.start, window.end, now);
      if (held.some((b) => b.start === window.start && b.end === window.end)) continue;
      // Expired days count as held: the sync fetches them again first, with the newest.
      const older = Math.min(window.end, days.published - 1);
      const stored = new Set(
        (await store.blocks(dataset.days, window.start, older)).filter((b) => b.start === b.end).map((b) => b.start),
      );
      if (stored.size < older - window.start + 1) tasks.push({ dataset, days: window });
    }
  return tasks;
}

/** Drops the range block of `window` that the trailing span `span` replaces: it is in, and answers the same days. */
export async function dropReplacedRange(db: Db, span: string, window: DayRange): Promise<void> {
  const dataset = RANGES.find((r) => r.span === span);
  if (dataset) await clear(db, { dataset: dataset.id, ...window });
}

/** Drops the range blocks that expired by `now`: they answer nothing, and a later window takes their place. */
export async function dropExpiredRanges(db: Db, now: number): Promise<void> {
  const expired = await db
    .selectFrom('history_blocks')
    .select(['dataset', 'start_day', 'end_day'])
    .where(
      'dataset',
      'in',
      RANGES.map((r) => r.id),
    )
    .where('expires_at', '<=', now)
    .execute();
  for (const b of expired) await clear(db, { dataset: b.dataset, start: Number(b.start_day), end: Number(b.end_day) });
}
