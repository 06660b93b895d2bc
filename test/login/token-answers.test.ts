import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LoginStore } from '../../src/login/login-store.js';
import { startSimulator, type Simulator } from '../../src/simulator/index.js';
import { getUserBudgetOverrides } from '../../src/upstream/endpoints/get-user-budget-overrides.js';
import { clientFor, requestsTo } from '../helpers/client.js';
import { accountOf, browserlessLogin, configHome, credentialOn, grants } from '../helpers/login.js';

// The spec shows no token answer: a sign-in service may leave out everything but the access token.
let sim: Simulator;
let home: ReturnType<typeof configHome>;
beforeEach(async () => {
  sim = await startSimulator({
    users: 40,
    rateLimit: false,
    warm: false,
    oauth: {
      autoApprove: true,
      answer: { rotateRefreshTokens: false, scope: false, expiresIn: false, identity: false },
    },
  });
  home = configHome();
});
afterEach(async () => {
  await sim.close();
  home.remove();
});

describe('a sign-in service whose token answers say little', () => {
  it('takes the scopes asked for, an unknown expiry and no identity, and keeps the refresh token it has', async () => {
    const store = new LoginStore(accountOf(sim), 'file', home.env);
    const login = await browserlessLogin(sim, ['read', 'write'], store);
    expect(login).toMatchObject({ scopes: ['read', 'write'], expires_at: null });
    expect(login.identity).toBeUndefined();

    const { credential, close } = credentialOn(store);
    const client = clientFor(sim, { token: credential, now: Date.now });
    try {
      // No expiry to refresh ahead of: only the upstream's 401 says when.
      await client.call(getUserBudgetOverrides, {});
      expect(grants(sim, 'refresh_token')).toHaveLength(0);
      sim.configure({ advance_ms: 2 * 3_600_000 });
      await client.call(getUserBudgetOverrides, {});
      expect(requestsTo(sim, 'get-user-budget-overrides').map((r) => r.status)).toEqual([200, 401, 200]);
      // The answer carried no new refresh token: the one stored stays, and works again.
      const stored = (await store.read())!.login;
      expect(stored.refresh_token).toBe(login.refresh_token);
      sim.configure({ advance_ms: 2 * 3_600_000 });
      await client.call(getUserBudgetOverrides, {});
      expect(grants(sim, 'refresh_token')).toHaveLength(2);
    } finally {
      await client.close();
      await close();
    }
  });
});
