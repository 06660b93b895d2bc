import { z } from 'zod';
import { VERSION } from '../../version.js';

/**
 * What the disk and Redis stores keep per cache key. The format names the package version, so that an
 * upgrade never serves an answer in an older shape: entries of other versions are simply not found.
 */
export const STORE_FORMAT = `oam-answer-1@${VERSION}`;

export interface StoredAnswer {
  /** The full cache key, kept to rule out a collision of the hashed name it is stored under. */
  key: string;
  value: unknown;
  fetchedAt: number;
  nextRefreshAt: number | undefined;
  /** When the answer's TTL ends (epoch ms, by the client's clock). */
  expiresAt: number;
}

/** An answer read back from a store, with the size of its encoding for the memory cache's bound. */
export interface StoreHit extends StoredAnswer {
  bytes: number;
}

const envelope = z.object({
  format: z.literal(STORE_FORMAT),
  key: z.string(),
  value: z.unknown(),
  fetchedAt: z.number().finite(),
  nextRefreshAt: z.number().finite().nullable(),
  expiresAt: z.number().finite(),
});

export function encodeAnswer(answer: StoredAnswer): string {
  return JSON.stringify({
    format: STORE_FORMAT,
    key: answer.key,
    value: answer.value,
    fetchedAt: answer.fetchedAt,
    nextRefreshAt: answer.nextRefreshAt ?? null,
    expiresAt: answer.expiresAt,
  });
}

export type Decoded = { ok: true; hit: StoreHit } | { ok: false; why: string };

/** Reads an encoding back; anything that is not exactly what encodeAnswer wrote for this key is refused. */
export function decodeAnswer(text: string, key: string): Decoded {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { ok: false, why: 'not JSON' };
  }
  const parsed = envelope.safeParse(json);
  if (!parsed.success) return { ok: false, why: `unexpected shape at ${parsed.error.issues[0]?.path.join('.')}` };
  if (parsed.data.key !== key) return { ok: false, why: 'stored under another key' };
  if (parsed.data.value === undefined) return { ok: false, why: 'no value' };
  const { value, fetchedAt, nextRefreshAt, expiresAt } = parsed.data;
  return {
    ok: true,
    hit: { key, value, fetchedAt, nextRefreshAt: nextRefreshAt ?? undefined, expiresAt, bytes: text.length },
  };
}

/**
 * A second-level store behind the memory cache. Its methods never throw: a store that cannot answer
 * is a miss, and a write that fails is forgotten, so no call ever fails because of a store.
 */
export interface AnswerStore {
  readonly name: string;
  /** The answer stored for `key` that is still fresh at `now`, or undefined. */
  get(key: string, now: number): Promise<StoreHit | undefined>;
  set(answer: StoredAnswer, encoded: string, now: number): Promise<void>;
  /** Forgets an entry that turned out unusable (e.g. a value its endpoint's schema refuses). */
  delete(key: string): Promise<void>;
  close(): Promise<void>;
}
