import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Simulator } from '../../src/simulator/index.js';
import { authorize, dauCount, decide, refresh, signIn, startOAuthSimulator } from './oauth-flow.js';

let sim: Simulator;
beforeAll(async () => {
  sim = await startOAuthSimulator({ autoApprove: true });
});
afterAll(() => sim.close());

const setOverrides = (accessToken: string) =>
  fetch(`${sim.url}/analytics/v0/set-user-budget-overrides`, {
    method: 'POST',
    headers: { authorization: `Bearer ${accessToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      overrides: [
        {
          service_account_name: 'ci-pipeline',
          resource: 'BUDGET_RESOURCE_CREDITS_CONSUMED',
          period: 'BUDGET_PERIOD_MONTHLY',
          config: { limit: '100' },
        },
      ],
    }),
  });

const errorCode = async (res: Response) => ((await res.json()) as any).error.code;

describe('OAuth access tokens on the analytics endpoints', () => {
  it('read and write with both scopes', async () => {
    const { access_token } = await signIn(sim, 'read write');
    expect((await dauCount(sim, access_token)).status).toBe(200);
    expect((await setOverrides(access_token)).status).toBe(200);
  });

  it('read but may not write with the read scope alone', async () => {
    const { access_token } = await signIn(sim, 'read');
    expect((await dauCount(sim, access_token)).status).toBe(200);
    const write = await setOverrides(access_token);
    expect(write.status).toBe(403);
    expect(await errorCode(write)).toBe('PermissionDenied');
  });

  it('write but may not read with the write scope alone', async () => {
    const { access_token } = await signIn(sim, 'write');
    expect((await setOverrides(access_token)).status).toBe(200);
    const read = await dauCount(sim, access_token);
    expect(read.status).toBe(403);
    expect(await errorCode(read)).toBe('PermissionDenied');
  });

  it('answers an unknown token as before: 401 with a bare Bearer challenge', async () => {
    const res = await dauCount(sim, 'sim_at_never-issued');
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe('Bearer');
  });

  it('never opens the /__sim/ controls', async () => {
    const { access_token } = await signIn(sim);
    const res = await fetch(`${sim.url}/__sim/requests`, { headers: { authorization: `Bearer ${access_token}` } });
    expect(res.status).toBe(401);
  });
});

describe('the request log', () => {
  it('names what each token allowed: write, read, expired', async () => {
    const full = await signIn(sim, 'read write');
    const readOnly = await signIn(sim, 'read');
    const writeOnly = await signIn(sim, 'write');
    sim.clearRequests();
    await dauCount(sim, full.access_token);
    await dauCount(sim, readOnly.access_token);
    await setOverrides(writeOnly.access_token);
    sim.oauth.revokeAll();
    await dauCount(sim, full.access_token);
    expect(sim.requests().map((r) => [r.path, r.status, r.auth])).toEqual([
      ['/analytics/v0/dau-count', 200, 'write'],
      ['/analytics/v0/dau-count', 200, 'read'],
      ['/analytics/v0/set-user-budget-overrides', 200, 'write'],
      ['/analytics/v0/dau-count', 401, 'expired'],
    ]);
  });

  it('records the OAuth requests with their grant type, and never a code, verifier, state or token', async () => {
    sim.oauth.setAutoApprove(false);
    sim.clearRequests();
    const consent = await authorize(sim, { state: 'secret-state' });
    await decide(sim, consent, 'deny');
    sim.oauth.setAutoApprove(true);
    const tokens = await signIn(sim);
    const renewed = await refresh(sim, tokens.refresh_token);
    await refresh(sim, 'sim_rt_replayed-or-wrong');
    const log = sim.requests();
    expect(log.map((r) => [r.method, r.path, r.status])).toEqual([
      ['GET', '/oauth/authorize', 200],
      ['POST', '/oauth/authorize', 302],
      ['GET', '/oauth/authorize', 302],
      ['POST', '/oauth/token', 200],
      ['POST', '/oauth/token', 200],
      ['POST', '/oauth/token', 400],
    ]);
    expect(log.map((r) => r.body)).toEqual([
      undefined,
      { decision: 'deny' },
      undefined,
      { grant_type: 'authorization_code' },
      { grant_type: 'refresh_token' },
      { grant_type: 'refresh_token' },
    ]);
    expect(log[0]!.query).toEqual({
      response_type: 'code',
      client_id: sim.oauthClientId,
      redirect_uri: 'http://127.0.0.1:53122/callback',
      scope: 'read write',
      code_challenge_method: 'S256',
    });
    const text = JSON.stringify(log);
    expect(text).not.toMatch(/sim_(at|rt|code|req)_|code_challenge"|code_verifier|"code":/);
    for (const secret of ['secret-state', tokens.access_token, tokens.refresh_token, renewed.body.access_token])
      expect(text).not.toContain(secret);
  });
});
