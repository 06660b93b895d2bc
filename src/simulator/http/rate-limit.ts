import { performance } from 'node:perf_hooks';
import { RATE_LIMIT_BLOCK_MS, RATE_LIMITS, type RateGroup } from '../../contract/limits.js';

export interface RateLimitSettings {
  enabled: boolean;
  /** Simulated seconds per real second: 10 makes 60/min behave as 600/min and the block last 1 s. */
  timeScale: number;
}

interface Bucket {
  tokens: number;
  updatedAt: number;
  blockedUntil: number;
}

export type RateDecision = { ok: true } | { ok: false; retryAfterMs: number };

/**
 * Token buckets per (token, group), as the spec documents: a burst capacity refilled at the sustained rate.
 * Exceeding a group blocks every request of that group for 10 seconds, counted from the offending request.
 */
export class RateLimiter {
  private readonly buckets = new Map<string, Bucket>();
  private simMs = 0;
  private lastReal: number;

  constructor(
    public settings: RateLimitSettings,
    private readonly realNow: () => number = () => performance.now(),
  ) {
    this.lastReal = realNow();
  }

  /** Simulated milliseconds; accumulated so that changing the time scale never jumps. */
  private now(): number {
    const real = this.realNow();
    this.simMs += (real - this.lastReal) * this.settings.timeScale;
    this.lastReal = real;
    return this.simMs;
  }

  update(settings: Partial<RateLimitSettings>): void {
    this.now();
    this.settings = { ...this.settings, ...settings };
  }

  reset(): void {
    this.buckets.clear();
  }

  take(token: string, group: RateGroup): RateDecision {
    if (!this.settings.enabled) return { ok: true };
    const t = this.now();
    const { perMinute, burst } = RATE_LIMITS[group];
    const key = `${group}\u0000${token}`;
    let bucket = this.buckets.get(key);
    if (!bucket) {
      bucket = { tokens: burst, updatedAt: t, blockedUntil: 0 };
      this.buckets.set(key, bucket);
    }
    bucket.tokens = Math.min(burst, bucket.tokens + ((t - bucket.updatedAt) * perMinute) / 60_000);
    bucket.updatedAt = t;
    if (t < bucket.blockedUntil)
      return { ok: false, retryAfterMs: (bucket.blockedUntil - t) / this.settings.timeScale };
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return { ok: true };
    }
    bucket.blockedUntil = t + RATE_LIMIT_BLOCK_MS;
    return { ok: false, retryAfterMs: RATE_LIMIT_BLOCK_MS / this.settings.timeScale };
  }
}
