import { duration, scopesText } from '../format/text.js';
import { startLoginFlow } from './login-flow.js';
import { openBrowser } from './open-browser.js';
import type { LoginAccount, StoredLogin } from '../config/stored-login.js';
import { TokenClient } from './token-client.js';

/** How long `login` waits for the browser to come back. */
export const WAIT_MS = 5 * 60_000;

export type Out = { print: (line: string) => void; warn: (line: string) => void; env: NodeJS.ProcessEnv };

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
