import { GROUP_BY_KEYS } from '../../contract/enums.js';
import type { RateGroup } from '../../contract/limits.js';
import { canonicalKey } from '../../upstream/cache/canonical-key.js';
import type { Listing } from '../../upstream/endpoint.js';
import { costAnalytics } from '../../upstream/endpoints/cost-analytics.js';
import { creditUsageByUser } from '../../upstream/endpoints/credit-usage-by-user.js';
import { dailyUsage } from '../../upstream/endpoints/daily-usage.js';
import { dailyUserActivityByEditorLanguage } from '../../upstream/endpoints/daily-user-activity-by-editor-language.js';
import { dauCount } from '../../upstream/endpoints/dau-count.js';
import { dau } from '../../upstream/endpoints/dau.js';
import { userActivity } from '../../upstream/endpoints/user-activity.js';
import { parseIsoDay } from '../../util/utc-date.js';

export type Grain = 'day' | 'month';

/**
 * One kind of stored block: which listing, asked with which parameters, kept per day or per calendar month.
 * `per`: how the sync asks for it. 'day' sends one request per day; 'window' one request for up to
 * `windowDays` days whose rows carry their date and are split into day blocks; 'month' one range per month;
 * 'range' one range whose rows are kept whole, as one block of its days (range-blocks.ts).
 */
export interface Dataset {
  id: string;
  listing: Listing;
  /** The listing's own arguments, as the tools pass them to `encode`. */
  args: Record<string, unknown>;
  grain: Grain;
  per: 'day' | 'window' | 'month' | 'range';
  windowDays?: number;
  /** For 'window': the day a row belongs to. */
  dayOf?: (row: Record<string, unknown>) => number | undefined;
  /** Whether the rows carry an identity (per-person datasets). */
  identities: boolean;
}

const ALL_COST_KEYS = [...GROUP_BY_KEYS];
const byDate = (field: string) => (row: Record<string, unknown>) => parseIsoDay(String(row[field]));

/** An organization's series of one row a day: one request per 90 days, split into day blocks. */
function dailySeries(id: string, listing: Listing): Dataset {
  return {
    id,
    listing,
    args: {},
    grain: 'day',
    per: 'window',
    windowDays: 90,
    dayOf: byDate('date'),
    identities: false,
  };
}

/** What the sync fetches and the store keeps, newest day first, group by group. */
export const DATASETS: readonly Dataset[] = [
  dailySeries('dau-count', dauCount),
  dailySeries('daily-usage', dailyUsage),
  { id: 'user-activity', listing: userActivity, args: {}, grain: 'day', per: 'day', identities: true },
  { id: 'dau', listing: dau, args: {}, grain: 'day', per: 'day', identities: true },
  {
    id: 'editor-language',
    listing: dailyUserActivityByEditorLanguage,
    args: {},
    grain: 'day',
    per: 'day',
    identities: true,
  },
  {
    id: 'credits-by-date-model',
    listing: creditUsageByUser,
    args: { by_date: true, by_model: true },
    grain: 'day',
    per: 'window',
    windowDays: 7,
    dayOf: byDate('date'),
    identities: true,
  },
  {
    id: 'cost-by-day',
    listing: costAnalytics,
    args: { group_by_keys: ALL_COST_KEYS, granularity: 'COST_ANALYTICS_TIME_GRANULARITY_DAY' },
    grain: 'day',
    per: 'window',
    windowDays: 7,
    dayOf: byDate('start_date'),
    identities: true,
  },
  { id: 'user-activity-months', listing: userActivity, args: {}, grain: 'month', per: 'month', identities: true },
  {
    id: 'credits-by-model-months',
    listing: creditUsageByUser,
    args: { by_date: false, by_model: true },
    grain: 'month',
    per: 'month',
    identities: true,
  },
  {
    id: 'cost-total-months',
    listing: costAnalytics,
    args: { group_by_keys: ALL_COST_KEYS, granularity: 'COST_ANALYTICS_TIME_GRANULARITY_TOTAL' },
    grain: 'month',
    per: 'month',
    identities: true,
  },
];

export function datasetById(id: string): Dataset {
  const found = DATASETS.find((d) => d.id === id);
  if (!found) throw new Error(`unknown dataset ${id}`);
  return found;
}

export function groupOf(dataset: Dataset): RateGroup {
  return dataset.listing.group ?? 'general';
}

/** The dataset a request is exactly, by listing and encoded parameters (dates and paging aside). */
export function datasetsOfRequest(listingName: string, params: Record<string, unknown>): Dataset[] {
  const key = canonicalKey(unordered(params));
  return DATASETS.filter(
    (d) => d.listing.name === listingName && canonicalKey(unordered(d.listing.encode(d.args as never))) === key,
  );
}

/** The cost group-by keys are a set: the same keys in another order ask for the same rows. */
function unordered(params: Record<string, unknown>): Record<string, unknown> {
  const keys = params.group_by_keys;
  return Array.isArray(keys) ? { ...params, group_by_keys: [...(keys as string[])].sort() } : params;
}
