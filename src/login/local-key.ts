import { randomBytes } from 'node:crypto';
import { link, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { configDir } from './config-dir.js';
import { privateDir } from './login-store.js';

const KEY_LENGTH = 64;

/**
 * A random key of this user's, made once (0600): with a login there is no fixed token to derive pseudonyms
 * and confirmation state from, and both must outlive refreshes and restarts.
 */
export async function localKey(env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const dir = configDir(env);
  const path = join(dir, 'local-key');
  const read = async () => (await readFile(path, 'utf8').catch(() => '')).trim();
  const existing = await read();
  if (existing.length >= KEY_LENGTH) return existing;
  await privateDir(dir);
  // Written whole under another name, then linked into place: the link fails if another process got there
  // first, and nobody ever reads a key half written.
  const temp = `${path}.${randomBytes(6).toString('hex')}.tmp`;
  await writeFile(temp, randomBytes(KEY_LENGTH / 2).toString('hex'), { mode: 0o600 });
  await link(temp, path).catch(() => {});
  await rm(temp, { force: true });
  const key = await read();
  if (key.length < KEY_LENGTH) throw new Error(`${path} does not hold a key: remove it and start again.`);
  return key;
}
