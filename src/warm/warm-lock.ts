import { randomBytes } from 'node:crypto';
import type { SharedRedis } from '../upstream/limits/redis-connection.js';
import { redisWithin } from '../upstream/limits/redis-within.js';

/** Long enough to ride out a slow Redis round trip between renewals, short enough that a crashed warmer frees it soon. */
export const WARM_LOCK_TTL_MS = 60_000;
const ANSWER_WITHIN_MS = 2_000;

// Compare-and-act: only the holder's own random value may extend or free the lock.
const RENEW_LUA = `if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('pexpire', KEYS[1], ARGV[2]) else return 0 end`;
const RELEASE_LUA = `if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end`;

export { credentialFingerprint } from '../upstream/credential.js';

export const warmLockKey = (redis: SharedRedis, credential: string) => `${redis.prefix}warm-lock:${credential}`;

/**
 * One warmer per credential among every process on a Redis: SET NX PX, renewed while held; released only
 * by its holder. `lost` aborts when a renewal finds the lock gone or another's (it expired while Redis
 * was away and someone else took it): the holder should stop, the other is warming now.
 */
export class WarmLock {
  readonly lost: AbortSignal;
  private readonly losing = new AbortController();
  private readonly timer: NodeJS.Timeout;
  private released = false;

  private constructor(
    private readonly redis: SharedRedis,
    private readonly key: string,
    private readonly value: string,
    private readonly ttlMs: number,
  ) {
    this.lost = this.losing.signal;
    this.timer = setInterval(() => void this.renew(), Math.max(10, Math.floor(ttlMs / 3)));
    this.timer.unref();
  }

  /** The lock, or null when another process holds it. Throws when Redis cannot answer (in time). */
  static async acquire(redis: SharedRedis, credential: string, ttlMs = WARM_LOCK_TTL_MS): Promise<WarmLock | null> {
    const key = warmLockKey(redis, credential);
    const value = randomBytes(16).toString('hex');
    const sent = redis.client.set(key, value, { condition: 'NX', expiration: { type: 'PX', value: ttlMs } });
    // A Redis that hangs must not hang the warm-up: it goes on without the lock.
    const set = await redisWithin(ANSWER_WITHIN_MS, sent);
    return set === 'OK' ? new WarmLock(redis, key, value, ttlMs) : null;
  }

  private async renew(): Promise<void> {
    if (this.released) return;
    try {
      const kept = await this.redis.client.eval(RENEW_LUA, {
        keys: [this.key],
        arguments: [this.value, String(this.ttlMs)],
      });
      if (kept === 0 && !this.released) this.losing.abort(new Error('another server took over the warm-up lock'));
    } catch {
      // Redis away for a moment: the lock holds for its TTL, the next renewal tries again.
    }
  }

  /** Frees the lock if it is still ours; never throws (an unreleased lock expires by itself). */
  async release(): Promise<void> {
    if (this.released) return;
    this.released = true;
    clearInterval(this.timer);
    await this.redis.client.eval(RELEASE_LUA, { keys: [this.key], arguments: [this.value] }).catch(() => {});
  }
}
