import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Simulator } from '../../src/simulator/index.js';
import { dauCount, refresh, signIn, startOAuthSimulator } from './oauth-flow.js';

let sim: Simulator;
beforeAll(async () => {
  sim = await startOAuthSimulator({ autoApprove: true });
});
afterAll(() => sim.close());
beforeEach(() => sim.oauth.setAccessTokenTtl(3600));

const expectRevoked = async (accessToken: string) => {
  const res = await dauCount(sim, accessToken);
  expect(res.status).toBe(401);
  expect(res.headers.get('www-authenticate')).toBe('Bearer error="invalid_token"');
};

describe('refresh', () => {
  it('rotates: a new access token and a new refresh token, the old refresh token used up', async () => {
    const first = await signIn(sim);
    const second = await refresh(sim, first.refresh_token);
    expect(second.status).toBe(200);
    expect(second.headers.get('cache-control')).toBe('no-store');
    expect(second.body).toMatchObject({ token_type: 'Bearer', scope: 'read write', expires_in: 3600 });
    expect(second.body.access_token).not.toBe(first.access_token);
    expect(second.body.refresh_token).not.toBe(first.refresh_token);
    expect((await dauCount(sim, second.body.access_token)).status).toBe(200);
    expect((await refresh(sim, second.body.refresh_token)).status).toBe(200);
  });

  it('treats a replayed refresh token as a leak: invalid_grant, and the whole family is revoked', async () => {
    const first = await signIn(sim);
    const second = await refresh(sim, first.refresh_token);
    const third = await refresh(sim, second.body.refresh_token);
    expect((await dauCount(sim, third.body.access_token)).status).toBe(200);
    const replay = await refresh(sim, first.refresh_token);
    expect(replay.status).toBe(400);
    expect(replay.body.error).toBe('invalid_grant');
    await expectRevoked(first.access_token);
    await expectRevoked(third.body.access_token);
    expect((await refresh(sim, third.body.refresh_token)).body.error).toBe('invalid_grant');
  });

  it('leaves other sign-ins alone when one family is revoked', async () => {
    const bystander = await signIn(sim);
    const victim = await signIn(sim);
    await refresh(sim, victim.refresh_token);
    await refresh(sim, victim.refresh_token);
    expect((await dauCount(sim, bystander.access_token)).status).toBe(200);
  });

  it('narrows the scope on request, keeps the grant for the next refresh, and refuses more', async () => {
    const first = await signIn(sim, 'read');
    expect((await refresh(sim, first.refresh_token, { scope: 'read write' })).body.error).toBe('invalid_scope');
    expect((await refresh(sim, first.refresh_token, { scope: 'admin' })).body.error).toBe('invalid_scope');
    const full = await signIn(sim);
    const narrowed = await refresh(sim, full.refresh_token, { scope: 'read' });
    expect(narrowed.body.scope).toBe('read');
    const widened = await refresh(sim, narrowed.body.refresh_token);
    expect(widened.body.scope).toBe('read write');
  });

  it('refuses an unknown refresh token, and one of another client', async () => {
    expect((await refresh(sim, 'sim_rt_nope')).body.error).toBe('invalid_grant');
    const other = await refresh(sim, (await signIn(sim)).refresh_token, { client_id: 'someone-else' });
    expect(other.status).toBe(401);
    expect(other.body.error).toBe('invalid_client');
  });
});

describe('access token lifetime', () => {
  it('expires after the TTL of simulator time, with invalid_token; a refresh then works', async () => {
    const tokens = await signIn(sim);
    sim.configure({ advance_ms: 3_599_000 });
    expect((await dauCount(sim, tokens.access_token)).status).toBe(200);
    sim.configure({ advance_ms: 1_000 });
    await expectRevoked(tokens.access_token);
    const renewed = await refresh(sim, tokens.refresh_token);
    expect((await dauCount(sim, renewed.body.access_token)).status).toBe(200);
  });

  it('takes a new TTL for the tokens issued afterwards, through the handle or /__sim/settings', async () => {
    sim.oauth.setAccessTokenTtl(1);
    const short = await signIn(sim);
    expect(short.expires_in).toBe(1);
    const settings = await fetch(`${sim.url}/__sim/settings`, {
      method: 'POST',
      headers: { authorization: 'Bearer rw-token', 'content-type': 'application/json' },
      body: JSON.stringify({ oauth_access_token_ttl_s: 120 }),
    });
    expect(await settings.json()).toMatchObject({ oauth_access_token_ttl_s: 120, oauth_auto_approve: true });
    const longer = await signIn(sim);
    expect(longer.expires_in).toBe(120);
    sim.configure({ advance_ms: 1_000 });
    await expectRevoked(short.access_token);
    expect((await dauCount(sim, longer.access_token)).status).toBe(200);
    expect(() => sim.oauth.setAccessTokenTtl(0)).toThrow();
  });
});

describe('revoking the app', () => {
  it('kills every access and refresh token, and a new sign-in works again', async () => {
    const a = await signIn(sim);
    const b = await signIn(sim, 'read');
    sim.oauth.revokeAll();
    await expectRevoked(a.access_token);
    await expectRevoked(b.access_token);
    expect((await refresh(sim, a.refresh_token)).body.error).toBe('invalid_grant');
    expect((await dauCount(sim, (await signIn(sim)).access_token)).status).toBe(200);
  });

  it('is also a /__sim/settings switch', async () => {
    const tokens = await signIn(sim);
    const res = await fetch(`${sim.url}/__sim/settings`, {
      method: 'POST',
      headers: { authorization: 'Bearer rw-token', 'content-type': 'application/json' },
      body: JSON.stringify({ oauth_revoke_all: true }),
    });
    expect(res.status).toBe(200);
    await expectRevoked(tokens.access_token);
  });
});
