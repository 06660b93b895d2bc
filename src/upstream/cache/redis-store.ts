import { createHash } from 'node:crypto';
import type { SharedRedis } from '../limits/redis-connection.js';
import { redisWithin } from '../limits/redis-within.js';
import { decodeAnswer, STORE_FORMAT, type AnswerStore, type StoredAnswer, type StoreHit } from './stored-answer.js';

/** A Redis command slower than this counts as a miss: Redis speeds answers up, it never holds them back. */
const COMMAND_TIMEOUT_MS = 300;

/**
 * Answers shared by every process on one Redis: a page one fetched is a hit for the others. Entries
 * expire with their TTL (PX). While Redis is away every method is a quiet no-op; the connection's own
 * error handler reports the outage once, and it reconnects by itself.
 */
export class RedisStore implements AnswerStore {
  readonly name = 'redis';

  constructor(private readonly redis: SharedRedis) {}

  /** The key's hash names it, so that no email or other argument shows in Redis key listings. */
  private keyOf(key: string): string {
    return `${this.redis.prefix}answer:${STORE_FORMAT}:${createHash('sha256').update(key).digest('hex')}`;
  }

  async get(key: string, now: number): Promise<StoreHit | undefined> {
    if (!this.redis.ready()) return undefined;
    let text: string | null;
    try {
      text = await redisWithin(COMMAND_TIMEOUT_MS, this.redis.client.get(this.keyOf(key)));
    } catch {
      return undefined;
    }
    if (text === null) return undefined;
    const decoded = decodeAnswer(text, key);
    if (!decoded.ok) {
      await this.delete(key);
      return undefined;
    }
    // TTLs run on the client's clock, which PX does not know.
    return decoded.hit.expiresAt > now ? decoded.hit : undefined;
  }

  async set(answer: StoredAnswer, encoded: string, now: number): Promise<void> {
    const ttl = Math.floor(answer.expiresAt - now);
    if (ttl < 1 || !this.redis.ready()) return;
    const expiration = { type: 'PX' as const, value: ttl };
    await redisWithin(COMMAND_TIMEOUT_MS, this.redis.client.set(this.keyOf(answer.key), encoded, { expiration })).catch(
      () => {},
    );
  }

  async delete(key: string): Promise<void> {
    if (!this.redis.ready()) return;
    await redisWithin(COMMAND_TIMEOUT_MS, this.redis.client.del(this.keyOf(key))).catch(() => {});
  }

  /** The connection is the owner's to close: the rate limits use it too. */
  async close(): Promise<void> {}
}
