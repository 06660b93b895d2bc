import { randomBytes } from 'node:crypto';
import { decodeJwt } from 'jose';
import { z } from 'zod';
import { HttpTransport } from '../upstream/transport/http.js';
import { VERSION } from '../version.js';
import { endpointOf, type LoginAccount, type StoredLogin } from '../config/stored-login.js';

/** An RFC 6749 error answer from the sign-in service: `error` is its code (invalid_grant, invalid_client…). */
export class OAuthError extends Error {
  constructor(
    readonly error: string,
    readonly description: string | undefined,
    readonly status: number,
  ) {
    super(`${error}${description ? `: ${description}` : ''}`);
    this.name = 'OAuthError';
  }
}

// The spec does not show the token response, so only access_token is required; the rest is used when present.
const tokenResponseSchema = z.looseObject({
  access_token: z.string().min(1),
  token_type: z.string().optional(),
  // 0 means already expired (refreshed at first use); null, or anything unreadable, means not said.
  expires_in: z
    .preprocess((v) => (v === null ? undefined : v), z.coerce.number().nonnegative().optional())
    .catch(undefined),
  refresh_token: z.string().min(1).optional(),
  scope: z.string().optional(),
  id_token: z.string().optional(),
});
type TokenResponse = z.infer<typeof tokenResponseSchema>;

const errorSchema = z.looseObject({ error: z.string(), error_description: z.string().optional() });

/** Talks to {auth_url}/token: exchanges codes and refreshes, through the same proxy settings as the API. */
export class TokenClient {
  private readonly http: HttpTransport;

  constructor(
    readonly account: LoginAccount,
    private readonly now: () => number = Date.now,
    env?: NodeJS.ProcessEnv,
  ) {
    const timeout = 15_000;
    this.http = new HttpTransport({
      connectTimeoutMs: 10_000,
      headersTimeoutMs: timeout,
      bodyTimeoutMs: timeout,
      attemptTimeoutMs: timeout,
      userAgent: `org-analytics-mcp/${VERSION} (+node ${process.version})`,
      env,
    });
  }

  async exchangeCode(
    code: { code: string; verifier: string; redirectUri: string; scopes: string[] },
    previous?: StoredLogin,
  ): Promise<StoredLogin> {
    const res = await this.post({
      grant_type: 'authorization_code',
      code: code.code,
      redirect_uri: code.redirectUri,
      client_id: this.account.clientId,
      code_verifier: code.verifier,
    });
    const identity = identityOf(res);
    // The same person signing in again keeps the login id, and with it the cache.
    const same = previous && identity !== undefined && previous.identity === identity;
    return this.loginOf(res, code.scopes, same ? previous : undefined);
  }

  async refresh(login: StoredLogin): Promise<StoredLogin> {
    if (!login.refresh_token) throw new OAuthError('invalid_grant', 'the login has no refresh token', 400);
    const res = await this.post({
      grant_type: 'refresh_token',
      refresh_token: login.refresh_token,
      client_id: this.account.clientId,
    });
    return this.loginOf(res, login.scopes, login);
  }

  close(): Promise<void> {
    return this.http.close();
  }

  private loginOf(res: TokenResponse, asked: string[], previous: StoredLogin | undefined): StoredLogin {
    const now = this.now();
    return {
      version: 1,
      auth_url: this.account.authUrl,
      client_id: this.account.clientId,
      login_id: previous?.login_id ?? randomBytes(12).toString('hex'),
      access_token: res.access_token,
      // RFC 6749 6: a refresh answer without a new refresh token leaves the old one in force.
      refresh_token: res.refresh_token ?? previous?.refresh_token,
      expires_at: res.expires_in === undefined ? null : now + res.expires_in * 1000,
      // RFC 6749 5.1: no scope in the answer means the scope asked for was granted.
      scopes: res.scope ? res.scope.split(/\s+/).filter(Boolean) : asked,
      identity: identityOf(res) ?? previous?.identity,
      obtained_at: new Date(now).toISOString(),
    };
  }

  private async post(form: Record<string, string>): Promise<TokenResponse> {
    const res = await this.http.send({
      method: 'POST',
      url: endpointOf(this.account, 'token'),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(form).toString(),
      endpoint: 'token',
    });
    let body: unknown;
    try {
      body = JSON.parse(res.text);
    } catch {
      body = undefined;
    }
    if (res.status >= 200 && res.status < 300) {
      const parsed = tokenResponseSchema.safeParse(body);
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        throw new OAuthError(
          'invalid_response',
          `the token answer is not usable: ${issue?.path.join('.') || '(body)'}: ${issue?.message}`,
          502,
        );
      }
      if (parsed.data.token_type && parsed.data.token_type.toLowerCase() !== 'bearer')
        throw new OAuthError('invalid_response', `token type ${parsed.data.token_type} is not Bearer`, 502);
      return parsed.data;
    }
    const error = errorSchema.safeParse(body);
    if (error.success) throw new OAuthError(error.data.error, error.data.error_description, res.status);
    throw new OAuthError('server_error', `the token endpoint answered ${res.status}`, res.status);
  }
}

/** Who signed in, when the answer says: a field the service adds, or the email of an ID token (shown, never trusted). */
function identityOf(res: TokenResponse): string | undefined {
  for (const field of ['user_email', 'email', 'username']) {
    const value = res[field];
    if (typeof value === 'string' && value !== '') return value;
  }
  if (!res.id_token) return undefined;
  try {
    const claims = decodeJwt(res.id_token);
    const name = claims.email ?? claims.preferred_username ?? claims.sub;
    return typeof name === 'string' ? name : undefined;
  } catch {
    return undefined;
  }
}
