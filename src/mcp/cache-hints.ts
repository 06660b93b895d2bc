import type { CacheHint, CacheScope } from '@modelcontextprotocol/server';
import type { Caller } from '../auth/caller.js';
import type { LoginCredential } from '../login/login-credential.js';
import type { AnalyticsClient } from '../upstream/client.js';
import { changelogPolicy, nextDailyRefresh, type Freshness } from '../domain/freshness.js';

/**
 * The cache hints of the 2026-07-28 revision (ttlMs, cacheScope). The lists and the views change only with the
 * configuration or a release, and the data they lead to turns over at the daily refresh: they hold until then.
 */

/**
 * `public` only when the answer is the same for everyone this server answers: never for an authenticated caller
 * (its role and tenant shape the tools, prompts and views), nor on a personal login (its scopes decide the writes).
 */
export function cacheScopeOf(caller: Caller | undefined, login: LoginCredential | undefined): CacheScope {
  return caller || login ? 'private' : 'public';
}

export const untilNextRefreshMs = (now: number, refreshHour: number): number =>
  Math.floor(nextDailyRefresh(now, refreshHour) - now);

/** The server's hints by operation. ttlMs is a getter: the SDK reads it as it encodes each answer, at that answer's time. */
export function cacheHintsFor(clock: Pick<AnalyticsClient, 'now' | 'refreshHour'>, cacheScope: CacheScope) {
  const hint: CacheHint = {
    get ttlMs() {
      return untilNextRefreshMs(clock.now(), clock.refreshHour);
    },
    cacheScope,
  };
  return {
    'tools/list': hint,
    'prompts/list': hint,
    'resources/list': hint,
    'resources/templates/list': hint,
    'resources/read': hint,
    'server/discover': hint,
  };
}

/** A changelog page holds while the cache keeps it (10 minutes from its fetch), and never past the daily refresh. */
export function changelogTtlMs(freshness: Freshness, now: number, refreshHour: number): number {
  const kept = Math.floor(Date.parse(freshness.fetched_at) + changelogPolicy().ttlMs - now);
  return Math.max(1, Math.min(kept, untilNextRefreshMs(now, refreshHour)));
}
