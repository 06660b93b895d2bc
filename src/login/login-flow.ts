import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { duration } from '../format/text.js';
import { callbackPage } from './callback-page.js';
import { newPkce, newState } from './pkce.js';
import { endpointOf, type StoredLogin } from '../config/stored-login.js';
import { OAuthError, type TokenClient } from './token-client.js';

/** A sign-in under way: the URL to open, and the login it ends in once the browser comes back. */
export interface LoginFlow {
  url: string;
  /** Where the browser comes back to: a port on this machine's loopback address. */
  redirectUri: string;
  result: Promise<StoredLogin>;
  cancel(): void;
}

export class LoginFlowError extends Error {
  override name = 'LoginFlowError';
}

/**
 * Authorization code with PKCE (RFC 7636) and a loopback redirect (RFC 8252): listens on 127.0.0.1 on a
 * random port, checks `state`, and exchanges the code together with the verifier.
 */
export async function startLoginFlow(options: {
  tokens: TokenClient;
  scopes: string[];
  timeoutMs: number;
  previous?: StoredLogin;
}): Promise<LoginFlow> {
  const { tokens, scopes } = options;
  const { verifier, challenge } = newPkce();
  const state = newState();
  let settle!: { resolve: (login: StoredLogin) => void; reject: (error: Error) => void };
  const result = new Promise<StoredLogin>((resolve, reject) => (settle = { resolve, reject }));
  result.catch(() => {});

  let redirectUri = '';
  /** The one redirect with the right state is taken; a reload or a duplicate must not spend the code twice. */
  let taken = false;
  let done = false;
  const server = createServer((req, res) => void answer(req, res));
  const finish = (error: Error | undefined, login?: StoredLogin) => {
    if (done) return;
    done = true;
    clearTimeout(timer);
    server.close();
    // Nothing is answered after the end, not even on a connection kept alive.
    setImmediate(() => server.closeAllConnections());
    if (error) settle.reject(error);
    else settle.resolve(login!);
  };
  const timer = setTimeout(
    () => finish(new LoginFlowError(`Nobody finished signing in within ${duration(options.timeoutMs)}.`)),
    options.timeoutMs,
  );
  timer.unref();

  async function answer(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', redirectUri);
    const page = (status: number, title: string, detail: string): void => {
      res
        .writeHead(status, {
          'content-type': 'text/html; charset=utf-8',
          'cache-control': 'no-store',
          connection: 'close',
        })
        .end(callbackPage(title, detail));
    };
    if (url.pathname !== '/callback') return page(404, 'Not found', 'This address only receives the sign-in redirect.');
    const params = url.searchParams;
    // Refused, but the sign-in goes on: anything on this machine can send a request here, and must not end it.
    if (params.get('state') !== state)
      return page(400, 'Sign-in refused', 'This answer does not belong to the sign-in that org-analytics-mcp started.');
    if (taken || done) return page(409, 'Already answered', 'This sign-in has already been answered.');
    taken = true;
    const error = params.get('error');
    if (error) {
      const description = params.get('error_description') ?? undefined;
      page(400, 'Sign-in not completed', description ?? error);
      return finish(new OAuthError(error, description, 400));
    }
    const code = params.get('code');
    if (!code) {
      page(400, 'Sign-in not completed', 'The redirect carried no authorization code.');
      return finish(new LoginFlowError('The sign-in service redirected back without an authorization code.'));
    }
    try {
      const login = await tokens.exchangeCode({ code, verifier, redirectUri, scopes }, options.previous);
      page(200, 'Signed in', 'org-analytics-mcp is signed in. You can close this tab.');
      finish(undefined, login);
    } catch (failure) {
      page(400, 'Sign-in not completed', failure instanceof Error ? failure.message : String(failure));
      finish(failure instanceof Error ? failure : new Error(String(failure)));
    }
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  redirectUri = `http://127.0.0.1:${(server.address() as AddressInfo).port}/callback`;
  const authorize = endpointOf(tokens.account, 'authorize');
  for (const [name, value] of Object.entries({
    response_type: 'code',
    client_id: tokens.account.clientId,
    redirect_uri: redirectUri,
    scope: scopes.join(' '),
    state,
    code_challenge: challenge,
    code_challenge_method: 'S256',
  }))
    authorize.searchParams.set(name, value);
  return {
    url: authorize.toString(),
    redirectUri,
    result,
    cancel: () => finish(new LoginFlowError('The sign-in was cancelled.')),
  };
}
