/** Numeric limits from the upstream spec's Limits section. */
export const MAX_RANGE_DAYS = 90;
export const LOOKBACK_YEARS = 2;
export const DEFAULT_RANGE_DAYS = 7;
export const MAX_OVERRIDES_PER_SET = 5000;
export const CHANGELOG_PAGE_SIZE = 10;

export type RateGroup = 'general' | 'credit-usage' | 'cost-analytics';
export const RATE_LIMITS: Record<RateGroup, { perMinute: number; burst: number }> = {
  general: { perMinute: 60, burst: 20 },
  'credit-usage': { perMinute: 30, burst: 10 },
  'cost-analytics': { perMinute: 30, burst: 10 },
};
export const RATE_LIMIT_BLOCK_MS = 10_000;

/** A positive integer without leading zeros, at most 18 digits; or empty to clear. */
export const BUDGET_LIMIT_PATTERN = /^(?:[1-9]\d{0,17})?$/;

/** Real pages are a few hundred KB (1,000 cost points, 500 credit records); see the --max-response-mb option. */
export const DEFAULT_MAX_RESPONSE_BYTES = 32 * 1024 * 1024;
