import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { lock } from 'proper-lockfile';

/**
 * Runs `task` while holding a lock shared by every process of this user: refresh tokens rotate, so two
 * processes refreshing the same login at once would revoke it. A holder that crashed frees it after `staleMs`.
 */
export async function withRefreshLock<T>(path: string, task: () => Promise<T>, staleMs = 30_000): Promise<T> {
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  const release = await lock(path, {
    realpath: false,
    stale: staleMs,
    retries: { retries: 200, factor: 1.2, minTimeout: 20, maxTimeout: 250 },
    // A lock taken over as stale while we refresh: the store is re-read next time, so carry on.
    onCompromised: () => {},
  });
  try {
    return await task();
  } finally {
    await release().catch(() => {});
  }
}
