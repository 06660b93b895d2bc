import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { configDir } from './config-dir.js';

/**
 * A random key of this user's, made once (0600): with a login there is no fixed token to derive pseudonyms
 * and confirmation state from, and both must outlive refreshes and restarts.
 */
export async function localKey(env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const dir = configDir(env);
  const path = join(dir, 'local-key');
  const existing = await readFile(path, 'utf8').catch(() => '');
  if (existing.trim().length >= 32) return existing.trim();
  await mkdir(dir, { recursive: true, mode: 0o700 });
  // 'wx': when two processes start at once, one writes and the other reads what it wrote.
  await writeFile(path, randomBytes(32).toString('hex'), { mode: 0o600, flag: 'wx' }).catch(() => {});
  return (await readFile(path, 'utf8')).trim();
}
