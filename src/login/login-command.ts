import { optionsHelp } from '../config/cli-help.js';
import { UsageError, helpPointer, readOptions, schemaOf, validateOptions } from '../config/cli-options.js';
import { duration, scopesText } from '../format/text.js';
import { describeLocation, LoginStore } from './login-store.js';
import { LOGIN_OPTIONS } from './login-options.js';
import { openBrowser } from './open-browser.js';
import { startLoginFlow } from './login-flow.js';
import type { LoginAccount, StoredLogin } from './stored-login.js';
import { TokenClient } from './token-client.js';
import { withRefreshLock } from './refresh-lock.js';

const COMMAND = 'org-analytics-mcp login';
/** How long `login` waits for the browser to come back. */
const WAIT_MS = 5 * 60_000;

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

type Out = { print: (line: string) => void; warn: (line: string) => void; env: NodeJS.ProcessEnv };

/** `login`, `logout` and `auth status`; resolves to the exit code. */
export async function runLoginCommand(command: 'login' | 'logout' | 'status', argv: string[], out: Out) {
  const read = readOptions(LOGIN_OPTIONS, argv, out.env, COMMAND);
  if (read.help) {
    out.print(LOGIN_HELP);
    return 0;
  }
  const options = validateOptions(schemaOf(LOGIN_OPTIONS), read, COMMAND);
  if (command === 'login' && options.demo) return (await import('./demo-login.js')).demoLogin(options, out);
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

/** Runs the browser flow and answers the login it ends in; shared with `login --demo`. */
export async function signIn(
  account: LoginAccount,
  scopes: string[],
  browser: boolean,
  out: Out,
  previous?: StoredLogin,
): Promise<StoredLogin> {
  const tokens = new TokenClient(account, Date.now, out.env);
  try {
    const flow = await startLoginFlow({ tokens, scopes, timeoutMs: WAIT_MS, previous });
    const cancel = () => flow.cancel();
    process.once('SIGINT', cancel);
    out.warn(`Open this address to sign in (asking for ${scopesText(scopes)}):\n  ${flow.url}`);
    if (browser) openBrowser(flow.url, out.env);
    out.warn(waitingLines(flow.redirectUri));
    try {
      return await flow.result;
    } finally {
      process.off('SIGINT', cancel);
    }
  } finally {
    await tokens.close();
  }
}

export const signedInLine = (login: StoredLogin) =>
  `Signed in to ${login.auth_url}${login.identity ? ` as ${login.identity}` : ''} with ${scopesText(login.scopes)}.`;

/**
 * How long the sign-in waits, and how to finish it from a browser on another machine: the sign-in service
 * sends that browser to this machine's loopback port, which a tunnel can reach, or a copy of the address.
 */
function waitingLines(redirectUri: string): string {
  const { port } = new URL(redirectUri);
  return [
    `Waiting up to ${duration(WAIT_MS)} for the browser to come back to ${redirectUri} (Ctrl-C to stop).`,
    'No browser on this machine? Open the address in a browser elsewhere, then either:',
    `  - forward the port first, from the browser's machine: ssh -L ${port}:127.0.0.1:${port} <this machine>, or`,
    `  - when the browser fails to load the ${redirectUri.replace(/\/callback$/, '')}/… page, copy that page's address and run here, in another terminal: curl '<the address>'`,
  ].join('\n');
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
