import { createHash } from 'node:crypto';
import type { RateGroup } from '../../contract/limits.js';
import type { LimitsConfig } from './limits-config.js';
import type { SharedRedis } from './redis-connection.js';
import { redisWithin } from './redis-within.js';
import { CancelledError } from '../errors.js';
import { sleep } from '../transport/retry.js';
import { PAUSE_GROUP_LUA, TAKE_TOKEN_LUA } from './token-bucket.lua.js';

/**
 * While Redis is away each process keeps to this share of the documented rate and burst, on its own.
 * Half assumes at most two processes share a token during an outage; with more, the local pacing and
 * the 429 pause still bound the damage to one short block.
 */
export const FALLBACK_SHARE = 0.5;
/** A Redis command slower than this counts as Redis being away for that request. */
const COMMAND_TIMEOUT_MS = 300;
/** Waits are cut into pieces this long, so that a pause or Redis coming back is noticed soon. */
const MAX_WAIT_MS = 1_000;

interface Rate {
  capacity: number;
  perMs: number;
}

/** The same bucket as the Lua script, in memory: used while Redis is away. */
class LocalBucket {
  private tokens: number;
  private at: number;

  constructor(
    private readonly rate: Rate,
    now: number,
  ) {
    this.tokens = rate.capacity;
    this.at = now;
  }

  private refill(now: number): void {
    if (now > this.at) this.tokens = Math.min(this.rate.capacity, this.tokens + (now - this.at) * this.rate.perMs);
    this.at = Math.max(this.at, now);
  }

  /** 0 when a token was taken, otherwise the ms until one will be there. */
  take(now: number): number {
    this.refill(now);
    if (this.tokens >= 1) {
      this.tokens -= 1;
      return 0;
    }
    return Math.ceil((1 - this.tokens) / this.rate.perMs);
  }

  level(now: number): number {
    this.refill(now);
    return Math.max(0, Math.floor(this.tokens));
  }

  /** Never holds more than `tokens`: what the shared bucket says is left, scaled to our share. */
  clamp(tokens: number, now: number): void {
    this.refill(now);
    this.tokens = Math.min(this.tokens, tokens);
  }
}

type Outcome = { waitMs: number; pausedMs: number };

/**
 * The rate budget of one credential shared through Redis by every process: one token per request from
 * an atomic bucket (documented rate, burst less the safety tokens), and a pause key that stops the group
 * for everyone after a 429. Redis is never a reason to fail: when it is away or slow, requests take
 * tokens from a local bucket at FALLBACK_SHARE of the limits, and the shared bucket resumes when it answers.
 *
 * After an outage the upstream bucket may be drained by what every process sent meanwhile, which the
 * shared bucket did not see (or, if Redis restarted, the bucket is gone and would start full). So the
 * first take after an outage caps the shared bucket at this process's own fallback level: each process
 * spent at most its share, so at least that much is left upstream. Every process does the same when it
 * returns, and the cap only ever lowers the bucket. Keys lost while every process stayed connected (a
 * FLUSHALL) start full: at worst one burst too many, whose 429 then pauses everyone. Local pacing stays on
 * throughout (see RateLimiters), so no single process ever exceeds the documented rate.
 */
export class SharedBudget {
  private readonly rates: Record<RateGroup, Rate>;
  private readonly fallbackRates: Record<RateGroup, Rate>;
  private readonly fallback = new Map<string, LocalBucket>();
  private readonly shas = new Map<string, string>();
  /** Redis failed since the last take that succeeded. */
  private outage = false;
  private stopped = false;

  constructor(
    private readonly redis: SharedRedis,
    limits: LimitsConfig,
    /** Applies a pause some process wrote to this process's own limiter. */
    private readonly onPause: (group: RateGroup, ms: number) => void,
    private readonly clock: () => number = Date.now,
  ) {
    const rate = (group: RateGroup, share: number): Rate => ({
      capacity: Math.max(1, Math.floor((limits[group].burst - limits.safetyTokens) * share)),
      perMs: (limits[group].perMinute * share) / 60_000,
    });
    const groups: RateGroup[] = ['general', 'credit-usage', 'cost-analytics'];
    this.rates = Object.fromEntries(groups.map((g) => [g, rate(g, 1)])) as Record<RateGroup, Rate>;
    this.fallbackRates = Object.fromEntries(groups.map((g) => [g, rate(g, FALLBACK_SHARE)])) as Record<RateGroup, Rate>;
  }

  /** Whether the last attempt to use Redis failed (requests then keep to the local fallback share). */
  get degraded(): boolean {
    return this.outage;
  }

  /** Resolves once a token of the group is ours; rejects only when `signal` aborts. */
  async admit(group: RateGroup, credential: string, signal?: AbortSignal): Promise<void> {
    for (;;) {
      if (this.stopped) throw new CancelledError('The client was closed.');
      const { waitMs, pausedMs } = await this.take(group, credential);
      if (waitMs <= 0) return;
      if (pausedMs > 0) this.onPause(group, pausedMs);
      await sleep(Math.min(waitMs, MAX_WAIT_MS), signal);
    }
  }

  /** Ends every wait at its next step: the client is closing. */
  stop(): void {
    this.stopped = true;
  }

  /** Tells every process to stop the group for `ms`. Best effort: the local pause already holds here. */
  async pause(group: RateGroup, credential: string, ms: number): Promise<void> {
    if (!this.redis.ready()) return;
    const ttl = this.ttlMs(group);
    await this.run(PAUSE_GROUP_LUA, credential, group, [ms, this.rates[group].perMs, ttl]).catch(() => {
      this.outage = true;
    });
  }

  private async take(group: RateGroup, credential: string): Promise<Outcome> {
    const local = this.localBucket(group, credential);
    if (this.redis.ready()) {
      const rate = this.rates[group];
      const cap = this.outage ? local.level(this.clock()) : -1;
      try {
        const [taken = 0, wait = 0, paused = 0, left = 0] = await this.run(TAKE_TOKEN_LUA, credential, group, [
          rate.capacity,
          rate.perMs,
          this.ttlMs(group),
          Math.min(cap, rate.capacity),
        ]);
        this.outage = false;
        // Should Redis go away next, start from what is left of the shared budget, not a full local one.
        local.clamp(left * FALLBACK_SHARE, this.clock());
        return { waitMs: taken === 1 ? 0 : Math.max(1, wait), pausedMs: paused === 1 ? wait : 0 };
      } catch {
        this.outage = true;
      }
    } else this.outage = true;
    return { waitMs: local.take(this.clock()), pausedMs: 0 };
  }

  private localBucket(group: RateGroup, credential: string): LocalBucket {
    const key = `${credential}:${group}`;
    let bucket = this.fallback.get(key);
    if (!bucket) this.fallback.set(key, (bucket = new LocalBucket(this.fallbackRates[group], this.clock())));
    return bucket;
  }

  /** Longer than a full refill (see TAKE_TOKEN_LUA), and at least a minute. */
  private ttlMs(group: RateGroup): number {
    const { capacity, perMs } = this.rates[group];
    return Math.max(60_000, Math.ceil((2 * capacity) / perMs));
  }

  private async run(script: string, credential: string, group: RateGroup, args: number[]): Promise<number[]> {
    const { client, prefix } = this.redis;
    const options = {
      keys: [`${prefix}bucket:${credential}:${group}`, `${prefix}pause:${credential}:${group}`],
      arguments: args.map(String),
    };
    let sha = this.shas.get(script);
    if (!sha) this.shas.set(script, (sha = createHash('sha1').update(script).digest('hex')));
    const send = client.evalSha(sha, options).catch((error: unknown) => {
      if (error instanceof Error && error.message.startsWith('NOSCRIPT')) return client.eval(script, options);
      throw error;
    });
    return (await redisWithin(COMMAND_TIMEOUT_MS, send)) as number[];
  }
}
