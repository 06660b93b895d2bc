import { RATE_LIMIT_BLOCK_MS, RATE_LIMITS, type RateGroup } from '../../contract/limits.js';

export interface BucketConfig {
  perMinute: number;
  burst: number;
}

export type LimitsConfig = Record<RateGroup, BucketConfig> & {
  /**
   * Tokens held back from the documented burst. Our refill ticks and the upstream's continuous refill
   * are not in phase; one spare token absorbs up to one interval of skew, so we never cause a block.
   */
  safetyTokens: number;
  /** How long the upstream blocks a group after an excess when it sends no Retry-After (documented: about 10 s). */
  blockMs: number;
  /** Added to a pause after a 429, on top of Retry-After or blockMs. */
  pauseMarginMs: number;
};

export const DEFAULT_LIMITS: LimitsConfig = {
  ...RATE_LIMITS,
  safetyTokens: 1,
  blockMs: RATE_LIMIT_BLOCK_MS,
  pauseMarginMs: 500,
};
