import { signedInLine, type Out } from '../login/browser-sign-in.js';
import { describeLocation } from '../login/login-store.js';
import { LOGIN_COMMAND, loginStoreOf, readLoginOptions } from './login-account.js';

/** `org-analytics-mcp auth status`: who is signed in and until when; exit 1 when no one is. */
export async function runAuthStatusCommand(argv: string[], out: Out): Promise<number> {
  const options = readLoginOptions('auth status', argv, out.env);
  if (!options) return 0;
  const store = loginStoreOf(options, out.env);
  const found = await store.read();
  if (!found) {
    out.print(`Not signed in to ${store.account.authUrl}. Run ${LOGIN_COMMAND} to sign in.`);
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
