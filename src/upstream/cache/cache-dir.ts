import { homedir } from 'node:os';
import { isAbsolute, join, resolve, win32 } from 'node:path';

const NAME = 'org-analytics-mcp';

/** The platform's per-user cache directory for this server. */
export function defaultCacheDir(
  platform: NodeJS.Platform = process.platform,
  env: NodeJS.ProcessEnv = process.env,
  home: string = homedir(),
): string {
  // The XDG spec says to ignore a relative XDG_CACHE_HOME.
  if (env.XDG_CACHE_HOME && isAbsolute(env.XDG_CACHE_HOME)) return join(env.XDG_CACHE_HOME, NAME);
  if (platform === 'darwin') return join(home, 'Library', 'Caches', NAME);
  if (platform === 'win32') {
    return win32.join(env.LOCALAPPDATA ?? win32.join(home, 'AppData', 'Local'), NAME, 'Cache');
  }
  return join(home, '.cache', NAME);
}

/** `--cache-dir` as configured: absent means the default, `none` turns the disk cache off (undefined). */
export function resolveCacheDir(
  configured: string | undefined,
  platform?: NodeJS.Platform,
  env?: NodeJS.ProcessEnv,
): string | undefined {
  if (configured === undefined) return defaultCacheDir(platform, env);
  if (configured.trim().toLowerCase() === 'none') return undefined;
  return resolve(configured);
}
