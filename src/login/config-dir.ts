import { homedir } from 'node:os';
import { join } from 'node:path';

/** Where logins and the local key live: $XDG_CONFIG_HOME/org-analytics-mcp, as gh and sentry-mcp keep theirs. */
export function configDir(env: NodeJS.ProcessEnv = process.env): string {
  const base =
    env.XDG_CONFIG_HOME ||
    (process.platform === 'win32' && env.APPDATA ? env.APPDATA : join(env.HOME || homedir(), '.config'));
  return join(base, 'org-analytics-mcp');
}
