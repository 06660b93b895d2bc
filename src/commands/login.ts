import { optionsHelp } from '../config/cli-help.js';
import { UsageError, helpPointer, readOptions, schemaOf, validateOptions } from '../config/cli-options.js';
import { duration } from '../format/text.js';
import { describeLocation, LoginStore } from '../login/login-store.js';
import { LOGIN_OPTIONS } from '../login/login-options.js';
import { signedInLine, signIn, WAIT_MS, type Out } from '../login/browser-sign-in.js';
import { withRefreshLock } from '../login/refresh-lock.js';

const COMMAND = 'org-analytics-mcp login';

export const LOGIN_HELP = `Usage: org-analytics-mcp login [--scopes read,write] [--no-browser] [--demo]
       org-analytics-mcp logout
       org-analytics-mcp auth status

Signs you in to the analytics API with OAuth (authorization code with PKCE), as an alternative to a
service-account token. The tokens are kept in the OS keychain, or in a 0600 file in
$XDG_CONFIG_HOME/org-analytics-mcp where there is no keychain; a server started without
ANALYTICS_API_TOKEN but with ANALYTICS_AUTH_URL and ANALYTICS_CLIENT_ID uses them, and refreshes them.

It waits up to ${duration(WAIT_MS)} for the browser to come back to a port on 127.0.0.1. Without a browser on this
machine, open the printed address on another one; login prints how to bring the answer back (an SSH port
forward, or curl of the address that browser could not load).

${optionsHelp(LOGIN_OPTIONS)}`;

/** `login`, `logout` and `auth status`; resolves to the exit code. */
export async function runLoginCommand(command: 'login' | 'logout' | 'status', argv: string[], out: Out) {
  const read = readOptions(LOGIN_OPTIONS, argv, out.env, COMMAND);
  if (read.help) {
    out.print(LOGIN_HELP);
    return 0;
  }
  const options = validateOptions(schemaOf(LOGIN_OPTIONS), read, COMMAND);
  if (command === 'login' && options.demo) return (await import('../login/demo-login.js')).demoLogin(options, out);
  if (!options.authUrl || !options.clientId)
    throw new UsageError(
      `Set ANALYTICS_AUTH_URL and ANALYTICS_CLIENT_ID (or --auth-url and --client-id): the sign-in service and the client registered for org-analytics-mcp.\n` +
        `  To try the flow without them: ${COMMAND} --demo.\n${helpPointer(COMMAND)}`,
    );
  const account = { authUrl: options.authUrl, clientId: options.clientId };
  const store = new LoginStore(account, options.credentialStore, out.env);
  if (command === 'status') return status(store, out);
  if (command === 'logout') {
    // Under the refresh lock: a server refreshing at this moment must not write the login back afterwards.
    const removed = await withRefreshLock(store.lockPath, () => store.remove());
    out.print(
      removed.length
        ? `Signed out: forgot the login kept in ${removed.map(describeLocation).join(' and ')}. Tokens already issued stay valid upstream until they expire.`
        : `There was no login for ${account.authUrl} to forget.`,
    );
    return 0;
  }
  const login = await signIn(account, options.scopes, !options.noBrowser, out, (await store.read())?.login);
  const where = await withRefreshLock(store.lockPath, () => store.write(login));
  if (where.kind === 'file' && store.keychainProblem)
    out.warn(`No OS keychain here (${store.keychainProblem}); using the file instead.`);
  out.print(`${signedInLine(login)} The login is kept in ${describeLocation(where)}.`);
  return 0;
}

async function status(store: LoginStore, out: Out): Promise<number> {
  const found = await store.read();
  if (!found) {
    out.print(`Not signed in to ${store.account.authUrl}. Run ${COMMAND} to sign in.`);
    return 1;
  }
  const { login, where } = found;
  const left = login.expires_at === null ? undefined : login.expires_at - Date.now();
  const expiry =
    left === undefined
      ? 'its expiry was not given'
      : left > 0
        ? `it expires at ${new Date(login.expires_at!).toISOString()} (in ${Math.ceil(left / 60_000)} min)`
        : `it expired at ${new Date(login.expires_at!).toISOString()}`;
  out.print(signedInLine(login));
  out.print(
    `  Access token: ${expiry}; ${login.refresh_token ? 'a refresh token renews it' : 'there is no refresh token, so sign in again when it expires'}.`,
  );
  out.print(
    `  Client: ${login.client_id}. Kept in ${describeLocation(where)}. Tokens obtained at ${login.obtained_at}.`,
  );
  return 0;
}
