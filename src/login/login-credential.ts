import { credentialFingerprint, type Credential } from '../upstream/credential.js';
import { LoginRequiredError, UpstreamError, UpstreamUnavailableError } from '../upstream/errors.js';
import type { LoginStore } from './login-store.js';
import { withRefreshLock } from './refresh-lock.js';
import type { StoredLogin } from '../config/stored-login.js';
import { OAuthError, type TokenClient } from './token-client.js';

/**
 * A token this close to its expiry is refreshed first: a request sent with it could arrive after it. A
 * minute, or a quarter of a short-lived token's life, so that such a token is not refreshed on every call.
 */
const earlyMs = (login: StoredLogin) =>
  Math.min(60_000, Math.max(0, (login.expires_at ?? 0) - Date.parse(login.obtained_at)) / 4);
const expiring = (login: StoredLogin, now: number) =>
  login.expires_at !== null && login.expires_at - now < earlyMs(login);
/** How often the store is read again for a login made or removed by the CLI meanwhile. */
const RELOAD_EVERY_MS = 15_000;
/** Refreshed tokens to keep scrubbing from logs and answers: the newest few are all that could still show up. */
const KEEP_SECRETS = 8;

/**
 * The upstream credential of a login: the stored tokens, refreshed before they expire and once more on a
 * 401. One refresh at a time, in this process and across processes (a lock, then a re-read of the store).
 */
export class LoginCredential implements Credential {
  readonly kind = 'login';
  private current: StoredLogin | undefined;
  private refreshing: Promise<StoredLogin> | undefined;
  private readonly listeners = new Set<() => void>();
  private readonly kept: string[] = [];
  private readAt = 0;

  constructor(
    private readonly store: LoginStore,
    private readonly tokens: TokenClient,
    /** Live list of secrets to scrub; this credential keeps its tokens in it. */
    private readonly secrets: Array<string | undefined>,
    private readonly now: () => number = Date.now,
  ) {}

  /** The login in use, once one was found; undefined before. */
  get login(): StoredLogin | undefined {
    return this.current;
  }

  /** Whether the login in use may change budgets (has the write scope); false before there is one. */
  canWrite(): boolean {
    return this.current?.scopes.includes('write') ?? false;
  }

  /** Called when the login in use changes (signed in, refreshed, other scopes). */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  fingerprint(): string {
    const { authUrl, clientId } = this.store.account;
    return credentialFingerprint(`login\n${authUrl}\n${clientId}\n${this.current?.login_id ?? 'none'}`);
  }

  /**
   * Reads the store again: a login made (or a logout done) by the CLI since is used without a restart, and
   * so are the scopes of a new login.
   */
  async reload(): Promise<StoredLogin | undefined> {
    // Set before reading: a keychain that fails is not asked again on every request either.
    this.readAt = this.now();
    let stored;
    try {
      stored = await this.store.read();
    } catch (error) {
      // A keychain that cannot be read is not a logout: keep what is in use; without one, say what failed.
      if (this.current) return this.current;
      throw keychainFailure(error);
    }
    if (stored) this.adopt(stored.login);
    else if (this.current) {
      this.current = undefined;
      this.changed();
    }
    return stored?.login;
  }

  async bearer(): Promise<string> {
    const stale = !this.current || this.now() - this.readAt > RELOAD_EVERY_MS;
    const login = stale ? await this.reload() : this.current;
    if (!login)
      throw new LoginRequiredError(`Nobody has signed in to ${this.store.account.authUrl} on this machine yet.`);
    if (expiring(login, this.now())) return (await this.refresh(login.access_token)).access_token;
    return login.access_token;
  }

  async renew(sent: string): Promise<string> {
    return (await this.refresh(sent)).access_token;
  }

  /** A login newer than `stale`: another process's refresh if there was one, else a refresh of our own. */
  private refresh(stale: string): Promise<StoredLogin> {
    this.refreshing ??= withRefreshLock(this.store.lockPath, async () => {
      const stored = (await this.store.read().catch((error: unknown) => Promise.reject(keychainFailure(error))))?.login;
      if (!stored)
        throw new LoginRequiredError('The stored login is gone (org-analytics-mcp logout, or the store was cleared).');
      if (stored.access_token !== stale && !expiring(stored, this.now())) return stored;
      const next = await this.tokens.refresh(stored).catch((error: unknown) => {
        throw refreshFailure(error);
      });
      await this.store.write(next).catch((error: unknown) => Promise.reject(keychainFailure(error)));
      return next;
    })
      .then((login) => {
        this.adopt(login);
        return login;
      })
      .finally(() => {
        this.refreshing = undefined;
      });
    return this.refreshing;
  }

  private adopt(login: StoredLogin): void {
    const before = this.current;
    this.current = login;
    for (const secret of [login.access_token, login.refresh_token]) {
      if (!secret || this.kept.includes(secret)) continue;
      this.kept.push(secret);
      this.secrets.push(secret);
    }
    while (this.kept.length > KEEP_SECRETS) {
      const old = this.kept.shift()!;
      this.secrets.splice(this.secrets.indexOf(old), 1);
    }
    if (before?.access_token !== login.access_token) this.changed();
  }

  private changed(): void {
    for (const listener of this.listeners) listener();
  }
}

function keychainFailure(error: unknown): Error {
  const said = error instanceof Error ? error.message : String(error);
  return new LoginRequiredError(`${said}; unlock it, or keep logins in a file instead (--credential-store file).`);
}

function refreshFailure(error: unknown): Error {
  // Not the analytics API's address that failed, so not its advice (check ANALYTICS_BASE_URL) either.
  if (error instanceof UpstreamError)
    return new UpstreamUnavailableError(
      `The sign-in service (ANALYTICS_AUTH_URL) did not answer the refresh of the login: ${error.message}`,
      'token',
      undefined,
      { cause: error },
    );
  if (!(error instanceof OAuthError)) return error instanceof Error ? error : new Error(String(error));
  if (error.error === 'invalid_grant')
    return new LoginRequiredError('The login expired or was revoked: the sign-in service refused its refresh token.');
  if (error.error === 'invalid_client')
    return new LoginRequiredError(
      `The sign-in service does not know this client (${error.message}); check ANALYTICS_CLIENT_ID.`,
    );
  return new UpstreamUnavailableError(`The sign-in service could not refresh the login: ${error.message}.`, 'token');
}
