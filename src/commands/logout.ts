import type { Out } from '../login/browser-sign-in.js';
import { describeLocation } from '../login/login-store.js';
import { withRefreshLock } from '../login/refresh-lock.js';
import { loginStoreOf, readLoginOptions } from './login-account.js';

/** `org-analytics-mcp logout`: forgets the kept login (tokens issued stay valid upstream); the exit code. */
export async function runLogoutCommand(argv: string[], out: Out): Promise<number> {
  const options = readLoginOptions('logout', argv, out.env);
  if (!options) return 0;
  const store = loginStoreOf(options, out.env);
  // Under the refresh lock: a server refreshing at this moment must not write the login back afterwards.
  const removed = await withRefreshLock(store.lockPath, () => store.remove());
  out.print(
    removed.length
      ? `Signed out: forgot the login kept in ${removed.map(describeLocation).join(' and ')}. Tokens already issued stay valid upstream until they expire.`
      : `There was no login for ${store.account.authUrl} to forget.`,
  );
  return 0;
}
