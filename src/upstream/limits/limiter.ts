import type Bottleneck from 'bottleneck';
import type { RateGroup } from '../../contract/limits.js';
import { DEFAULT_LIMITS, type LimitsConfig } from './limits-config.js';
import { abortError } from '../transport/deadline.js';
import type { SharedRedis } from './redis-connection.js';
import { SharedBudget } from './shared-bucket.js';
import { instruments } from '../../telemetry/instruments.js';
import { inSpan } from '../../telemetry/spans.js';

/** Who waits for a request: a person (interactive) or nobody yet (warm-up, background completion). */
export type Priority = 'interactive' | 'background';
/** Bottleneck priorities: lower runs first; the default (5) sits between, unused. */
const PRIORITY: Record<Priority, number> = { interactive: 4, background: 7 };

/**
 * One token bucket per upstream rate-limit group, shared by every caller of the client. Built on
 * Bottleneck's reservoir: `reservoirIncrease*` refills it, and a 429 pauses the group by driving the
 * reservoir negative with `incrementReservoir` (never `updateSettings`, which would stop the refill).
 *
 * A Bottleneck job only admits a request: it takes the local token and, with Redis, one from the shared
 * bucket (which may wait); the request itself runs after the job ends. Waiting requests stay in
 * Bottleneck's priority queue, where a token always goes to the most urgent; with Redis, `maxConcurrent: 1`
 * keeps them there while one admission waits for the shared bucket, instead of letting them pile up past
 * the queue. So an interactive request waits behind at most one background one.
 * The pacing here stays on with Redis too, so that one process alone never exceeds the documented rate.
 */
export class RateLimiters {
  /** Built with the first request: Bottleneck is loaded then, not at start-up. Every bucket starts full either way. */
  private limiters: Promise<Record<RateGroup, Bottleneck>> | undefined;
  private readonly intervals: Record<RateGroup, number>;
  private readonly pausedUntil: Record<RateGroup, number> = { general: 0, 'credit-usage': 0, 'cost-analytics': 0 };
  /** The budget shared with other processes through Redis, when there is one. */
  readonly shared: SharedBudget | undefined;

  constructor(
    readonly config: LimitsConfig = DEFAULT_LIMITS,
    private readonly now: () => number = Date.now,
    shared?: SharedRedis,
  ) {
    this.shared =
      shared &&
      new SharedBudget(shared, config, (group, ms) => {
        this.pauseLocally(group, ms).catch(() => {});
      });
    this.intervals = {
      general: Math.ceil(60_000 / config.general.perMinute),
      'credit-usage': Math.ceil(60_000 / config['credit-usage'].perMinute),
      'cost-analytics': Math.ceil(60_000 / config['cost-analytics'].perMinute),
    };
  }

  private buckets(): Promise<Record<RateGroup, Bottleneck>> {
    return (this.limiters ??= import('bottleneck').then(({ default: Bottleneck }) => {
      const make = (group: RateGroup) => {
        const { perMinute, burst } = this.config[group];
        const capacity = Math.max(1, burst - this.config.safetyTokens);
        const interval = 60_000 / perMinute;
        // Bottleneck adds at most one token per heartbeat, on the first heartbeat at least an interval
        // after the last addition. Four heartbeats per interval, and an interval a hair shorter than the
        // true one (timers and Date.now may disagree by a millisecond), make the refill land on every
        // fourth heartbeat: the documented rate, never faster, without drifting a quarter interval late.
        return new Bottleneck({
          reservoir: capacity,
          reservoirIncreaseAmount: 1,
          reservoirIncreaseInterval: interval - Math.min(5, interval / 20),
          reservoirIncreaseMaximum: capacity,
          heartbeatInterval: interval / 4,
          // Only the shared budget makes an admission wait; without it a job leaves the queue only to send.
          maxConcurrent: this.shared ? 1 : null,
        });
      };
      return {
        general: make('general'),
        'credit-usage': make('credit-usage'),
        'cost-analytics': make('cost-analytics'),
      };
    }));
  }

  /**
   * Runs `task` when the group has a token (and, with Redis, the shared budget one). A caller that cancels
   * while waiting stops waiting at once. `credential` names the token's bucket in Redis (a fingerprint).
   */
  async schedule<T>(
    group: RateGroup,
    task: () => Promise<T>,
    signal?: AbortSignal,
    priority: Priority = 'interactive',
    credential = 'default',
  ): Promise<T> {
    if (signal?.aborted) throw abortError(signal);
    const limiters = await this.buckets();
    if (signal?.aborted) throw abortError(signal);
    await this.waitTurn(group, () => this.admit(limiters[group], group, signal, priority, credential));
    // Once the task has started it owns the signal: it knows whether its request was already on its way,
    // which matters for writes.
    if (signal?.aborted) throw abortError(signal);
    return task();
  }

  /** The wait for a token, in a span of its own: its group's queue depth while it lasts, and its time. */
  private async waitTurn(group: RateGroup, admit: () => Promise<void>): Promise<void> {
    const labels = { group };
    instruments().limiterQueue.add(1, labels);
    const started = performance.now();
    try {
      await inSpan('rate limit wait', { 'org_analytics.rate_group': group }, admit);
    } finally {
      instruments().limiterQueue.add(-1, labels);
      instruments().limiterWait.record((performance.now() - started) / 1000, labels);
    }
  }

  private async admit(
    limiter: Bottleneck,
    group: RateGroup,
    signal: AbortSignal | undefined,
    priority: Priority,
    credential: string,
  ): Promise<void> {
    let onAbort: (() => void) | undefined;
    const cancelled = new Promise<never>((_, reject) => {
      onAbort = () => reject(abortError(signal));
      signal?.addEventListener('abort', onAbort, { once: true });
    });
    cancelled.catch(() => {});
    // A cancelled job still runs when its turn comes (the local token is spent), but ends at once.
    const job = limiter.schedule({ priority: PRIORITY[priority] }, async () => {
      if (signal?.aborted) throw abortError(signal);
      await this.shared?.admit(group, credential, signal);
    });
    job.catch(() => {});
    try {
      await Promise.race([job, cancelled]);
    } finally {
      if (onAbort) signal?.removeEventListener('abort', onAbort);
    }
  }

  /**
   * Stops the group for `ms` after a 429: the reservoir goes negative so that the refill brings it back
   * to zero no earlier than `ms` from now; the next token (one interval later) lets a retry through.
   */
  async pause(group: RateGroup, retryAfterMs?: number, credential = 'default'): Promise<number> {
    const ms = (retryAfterMs ?? this.config.blockMs) + this.config.pauseMarginMs;
    const until = await this.pauseLocally(group, ms);
    // Every process on the Redis stops too; it hears of it before its next request of the group.
    await this.shared?.pause(group, credential, ms);
    return until;
  }

  private async pauseLocally(group: RateGroup, ms: number): Promise<number> {
    const until = this.now() + ms;
    if (until <= this.pausedUntil[group]) return this.pausedUntil[group];
    this.pausedUntil[group] = until;
    const limiter = (await this.buckets())[group];
    const current = (await limiter.currentReservoir()) ?? 0;
    const target = -Math.ceil(ms / this.intervals[group]);
    if (current > target) await limiter.incrementReservoir(target - current);
    return until;
  }

  async stop(): Promise<void> {
    this.shared?.stop();
    if (!this.limiters) return;
    await Promise.all(Object.values(await this.limiters).map((l) => l.stop({ dropWaitingJobs: true }).catch(() => {})));
  }
}
