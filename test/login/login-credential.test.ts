import { statSync } from 'node:fs';
import { dirname } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LoginStore } from '../../src/login/login-store.js';
import { startSimulator, type FaultSpec, type Simulator } from '../../src/simulator/index.js';
import { getUserBudgetOverrides } from '../../src/upstream/endpoints/get-user-budget-overrides.js';
import { LoginRequiredError, UpstreamUnavailableError } from '../../src/upstream/errors.js';
import { toolErrorMessage } from '../../src/tools/failure-text.js';
import { clientFor, requestsTo } from '../helpers/client.js';
import { accountOf, browserlessLogin, configHome, credentialOn, grants } from '../helpers/login.js';

let sim: Simulator;
let home: ReturnType<typeof configHome>;
let store: LoginStore;

beforeEach(async () => {
  sim = await startSimulator({ users: 120, rateLimit: false, warm: false, oauth: { autoApprove: true } });
  home = configHome();
  store = new LoginStore(accountOf(sim), 'file', home.env);
});
afterEach(async () => {
  await sim.close();
  home.remove();
});

describe('a login as the upstream credential', () => {
  it('keeps the login in a 0600 file in a 0700 directory when asked for the file (or when there is no keychain)', async () => {
    await browserlessLogin(sim, ['read'], store);
    expect(statSync(store.file).mode & 0o777).toBe(0o600);
    expect(statSync(dirname(store.file)).mode & 0o777).toBe(0o700);
    expect((await store.read())?.where).toEqual({ kind: 'file', path: store.file });
  });

  it('refreshes before expiry, and the rotated refresh token replaces the old one in the store', async () => {
    sim.oauth.setAccessTokenTtl(2);
    const first = await browserlessLogin(sim, ['read'], store);
    const { credential, close } = credentialOn(store);
    const client = clientFor(sim, { token: credential, now: Date.now });
    try {
      await new Promise((r) => setTimeout(r, 1_600));
      await client.call(getUserBudgetOverrides, {});
      const stored = (await store.read())!.login;
      expect(stored.access_token).not.toBe(first.access_token);
      expect(stored.refresh_token).not.toBe(first.refresh_token);
      expect(grants(sim, 'refresh_token')).toHaveLength(1);
      // No request went out with the expiring token: the refresh came first.
      expect(requestsTo(sim, 'get-user-budget-overrides').map((r) => r.status)).toEqual([200]);
    } finally {
      await client.close();
      await close();
    }
  });

  const path = '/analytics/v0/get-user-budget-overrides';
  it.each<[string, FaultSpec[], number, number[]]>([
    ['refreshes once more on a 401, and sends the request again', [], 3, [401, 200]],
    [
      // The retry's 401 comes first, then the renewed request meets a 429: with two attempts, only the retry spends one.
      'in one call, a retry, a renewal after a 401 and a wait after a 429 each do their own job',
      [
        { path, kind: '503' },
        { path, kind: '429', retryAfterSeconds: 0, skip: 1 },
      ],
      2,
      [503, 401, 429, 200],
    ],
    [
      // The first 401 is renewed; the renewed request meets a 503 and is retried with the renewed token.
      'keeps the renewed token for the retries: a retry after a renewal sends it, and nothing refreshes again',
      [{ path, kind: '503', skip: 1 }],
      3,
      [401, 503, 200],
    ],
  ])('%s', async (_name, faults, maxAttempts, statuses) => {
    await browserlessLogin(sim, ['read'], store);
    const { credential, close } = credentialOn(store);
    const client = clientFor(sim, { token: credential, now: Date.now, retry: { maxAttempts } });
    try {
      // The upstream's clock moves past the token's expiry; ours does not know.
      sim.configure({ advance_ms: 2 * 3_600_000 });
      for (const fault of faults) sim.injectFault(fault);
      await client.call(getUserBudgetOverrides, {});
      expect(requestsTo(sim, 'get-user-budget-overrides').map((r) => r.status)).toEqual(statuses);
      expect(grants(sim, 'refresh_token')).toHaveLength(1);
    } finally {
      await client.close();
      await close();
    }
  });

  it('answers LoginRequiredError when the refresh token was revoked, and when there is no login at all', async () => {
    const { credential, close } = credentialOn(store);
    try {
      await expect(credential.bearer()).rejects.toBeInstanceOf(LoginRequiredError);
      const login = await browserlessLogin(sim, ['read'], store);
      expect(await credential.bearer()).toBe(login.access_token);
      sim.oauth.revokeAll();
      const error = await credential.renew(login.access_token).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(LoginRequiredError);
      expect((error as Error).message).toMatch(/expired or was revoked/);
    } finally {
      await close();
    }
  });

  it('two processes refreshing at once: one refresh, both use its tokens, and the login survives', async () => {
    const login = await browserlessLogin(sim, ['read'], store);
    const a = credentialOn(new LoginStore(accountOf(sim), 'file', home.env));
    const b = credentialOn(new LoginStore(accountOf(sim), 'file', home.env));
    try {
      await Promise.all([a.credential.bearer(), b.credential.bearer()]);
      // Both saw the same token rejected (a 401) and renew at the same moment.
      const [ta, tb] = await Promise.all([
        a.credential.renew(login.access_token),
        b.credential.renew(login.access_token),
      ]);
      expect(ta).toBe(tb);
      expect(grants(sim, 'refresh_token')).toHaveLength(1);
      // Reusing a rotated refresh token would have revoked the family: the new one still refreshes.
      const third = credentialOn(new LoginStore(accountOf(sim), 'file', home.env));
      await third.credential.reload();
      await expect(third.credential.renew(ta)).resolves.toMatch(/\S/);
      await third.close();
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('keeps every token it used in the list of secrets to scrub', async () => {
    sim.oauth.setAccessTokenTtl(2);
    await browserlessLogin(sim, ['read'], store);
    const secrets: Array<string | undefined> = [];
    const { credential, close } = credentialOn(store, secrets);
    try {
      const first = await credential.bearer();
      const second = await credential.renew(first);
      const stored = (await store.read())!.login;
      expect(secrets).toEqual(expect.arrayContaining([first, second, stored.refresh_token]));
    } finally {
      await close();
    }
  });

  it('says the sign-in service, not the analytics API, failed when a refresh cannot reach it', async () => {
    const login = await browserlessLogin(sim, ['read']);
    const gone = new LoginStore({ authUrl: 'http://127.0.0.1:9/oauth', clientId: 'x' }, 'file', home.env);
    await gone.write({ ...login, auth_url: 'http://127.0.0.1:9/oauth', expires_at: Date.now() - 1 });
    const { credential, close } = credentialOn(gone);
    try {
      const error = await credential.bearer().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(UpstreamUnavailableError);
      expect(toolErrorMessage(error)).toMatch(/sign-in service \(ANALYTICS_AUTH_URL\) did not answer/);
    } finally {
      await close();
    }
  });

  it('a 401 whose refresh cannot reach the sign-in service says so, and is not resent', async () => {
    const login = await browserlessLogin(sim, ['read']);
    const gone = new LoginStore({ authUrl: 'http://127.0.0.1:9/oauth', clientId: 'x' }, 'file', home.env);
    await gone.write({ ...login, auth_url: 'http://127.0.0.1:9/oauth' });
    const { credential, close } = credentialOn(gone);
    const client = clientFor(sim, { token: credential, now: Date.now });
    try {
      sim.configure({ advance_ms: 2 * 3_600_000 });
      const error = await client.call(getUserBudgetOverrides, {}).catch((e: unknown) => e);
      expect(toolErrorMessage(error)).toMatch(/sign-in service \(ANALYTICS_AUTH_URL\) did not answer/);
      expect(requestsTo(sim, 'get-user-budget-overrides').map((r) => r.status)).toEqual([401]);
    } finally {
      await client.close();
      await close();
    }
  });
});
