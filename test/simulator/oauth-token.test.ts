import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Simulator } from '../../src/simulator/index.js';
import { codeFor, dauCount, exchange, pkcePair, REDIRECT, startOAuthSimulator, token } from './oauth-flow.js';

let sim: Simulator;
beforeAll(async () => {
  sim = await startOAuthSimulator({ autoApprove: true });
});
afterAll(() => sim.close());

const expectError = (answer: Awaited<ReturnType<typeof token>>, status: number, error: string) => {
  expect(answer.status).toBe(status);
  expect(answer.headers.get('cache-control')).toBe('no-store');
  expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
  expect(Object.keys(answer.body).sort()).toEqual(['error', 'error_description']);
  expect(answer.body.error).toBe(error);
  expect(answer.body.error_description).toEqual(expect.any(String));
};

describe('the authorization code exchange', () => {
  it('answers the tokens, their lifetime, the granted scope and who approved, never to be cached', async () => {
    const answer = await exchange(sim, await codeFor(sim));
    expect(answer.status).toBe(200);
    expect(answer.headers.get('cache-control')).toBe('no-store');
    const email = sim.state.org.identities.find((i) => i.kind !== 'service_account')!.id;
    expect(answer.body).toEqual({
      access_token: expect.stringMatching(/^sim_at_[\w-]{43}$/),
      token_type: 'Bearer',
      expires_in: 3600,
      refresh_token: expect.stringMatching(/^sim_rt_[\w-]{43}$/),
      scope: 'read write',
      user_email: email,
    });
    expect((await dauCount(sim, answer.body.access_token)).status).toBe(200);
  });

  it('grants read alone when the request named no scope', async () => {
    const answer = await exchange(sim, await codeFor(sim, ''));
    expect(answer.body.scope).toBe('read');
  });

  it('takes a code once; a second use fails and revokes the tokens the first one gave', async () => {
    const grant = await codeFor(sim);
    const first = await exchange(sim, grant);
    expect((await dauCount(sim, first.body.access_token)).status).toBe(200);
    expectError(await exchange(sim, grant), 400, 'invalid_grant');
    const revoked = await dauCount(sim, first.body.access_token);
    expect(revoked.status).toBe(401);
    expect(revoked.headers.get('www-authenticate')).toBe('Bearer error="invalid_token"');
    expectError(
      await token(sim, {
        grant_type: 'refresh_token',
        client_id: sim.oauthClientId,
        refresh_token: first.body.refresh_token,
      }),
      400,
      'invalid_grant',
    );
  });

  it('lets a code expire after codeTtlSeconds of simulator time', async () => {
    const grant = await codeFor(sim);
    sim.configure({ advance_ms: 60_000 });
    expectError(await exchange(sim, grant), 400, 'invalid_grant');
  });

  it('refuses a verifier that does not match the challenge, or is malformed', async () => {
    const grant = await codeFor(sim);
    expectError(await exchange(sim, { ...grant, verifier: pkcePair().verifier }), 400, 'invalid_grant');
    expectError(await exchange(sim, { ...grant, verifier: 'short' }), 400, 'invalid_grant');
    expect((await exchange(sim, grant)).status).toBe(200);
  });

  it('needs the redirect URI of the authorization request exactly, port included', async () => {
    const grant = await codeFor(sim);
    for (const redirectUri of ['http://127.0.0.1:53123/callback', 'http://127.0.0.1/callback'])
      expectError(await exchange(sim, { ...grant, redirectUri }), 400, 'invalid_grant');
    expect((await exchange(sim, { ...grant, redirectUri: REDIRECT })).status).toBe(200);
  });

  it('refuses an unknown code', async () => {
    expectError(
      await exchange(sim, { code: 'sim_code_nope', verifier: pkcePair().verifier, redirectUri: REDIRECT }),
      400,
      'invalid_grant',
    );
  });
});

describe('token endpoint errors (RFC 6749 5.2)', () => {
  const base = () => ({
    grant_type: 'authorization_code',
    client_id: sim.oauthClientId,
    code: 'x',
    redirect_uri: REDIRECT,
    code_verifier: pkcePair().verifier,
  });

  it('answers invalid_client with 401 for an unknown client', async () => {
    expectError(await token(sim, { ...base(), client_id: 'someone-else' }), 401, 'invalid_client');
  });

  it('answers unsupported_grant_type for other grants', async () => {
    for (const grant_type of ['password', 'client_credentials', 'implicit'])
      expectError(await token(sim, { ...base(), grant_type }), 400, 'unsupported_grant_type');
  });

  it.each(['grant_type', 'client_id', 'code', 'redirect_uri', 'code_verifier'])(
    'answers invalid_request without %s',
    async (name) => {
      const params: Record<string, string> = base();
      delete params[name];
      expectError(await token(sim, params), 400, 'invalid_request');
    },
  );

  it('answers invalid_request for a repeated parameter', async () => {
    const res = await fetch(`${sim.authUrl}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `${new URLSearchParams(base())}&code=y`,
    });
    expectError({ status: res.status, headers: res.headers, body: await res.json() }, 400, 'invalid_request');
  });

  it('answers invalid_request for a body that is not form-encoded', async () => {
    expectError(await token(sim, base(), 'application/json'), 400, 'invalid_request');
  });

  it('accepts the form content type with a charset', async () => {
    const grant = await codeFor(sim);
    const answer = await token(
      sim,
      {
        grant_type: 'authorization_code',
        client_id: sim.oauthClientId,
        code: grant.code,
        redirect_uri: REDIRECT,
        code_verifier: grant.verifier,
      },
      'application/x-www-form-urlencoded; charset=UTF-8',
    );
    expect(answer.status).toBe(200);
  });

  it('answers 405 for a GET', async () => {
    const res = await fetch(`${sim.authUrl}/token`);
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('POST');
  });
});
