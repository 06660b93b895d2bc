import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Simulator } from '../../src/simulator/index.js';
import { authorize, decide, exchange, pkcePair, REDIRECT, redirected, startOAuthSimulator } from './oauth-flow.js';

let sim: Simulator;
beforeAll(async () => {
  sim = await startOAuthSimulator();
});
afterAll(() => sim.close());
beforeEach(() => sim.oauth.setAutoApprove(false));

describe('the consent page', () => {
  it('names the client, the scopes in words and who signs in, and cannot be cached, framed or load anything', async () => {
    const res = await authorize(sim);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const csp = res.headers.get('content-security-policy')!;
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("form-action 'self' http://127.0.0.1:53122");
    const html = await res.text();
    const email = sim.state.org.identities.find((i) => i.kind !== 'service_account')!.id;
    expect(html).toContain(sim.oauthClientId);
    expect(html).toContain(email);
    expect(html).toContain('Read organization analytics, usage and budget configuration');
    expect(html).toContain('Create, update or clear budget overrides');
    expect(html).toContain('<form method="post" action="/oauth/authorize">');
    expect(html).toContain('<button type="submit" name="decision" value="approve">Approve</button>');
    expect(html).toContain('<button type="submit" name="decision" value="deny">Deny</button>');
    expect(html).not.toMatch(/(src|href)=/);
  });

  it('lists only the read scope when none is asked for', async () => {
    const html = await (await authorize(sim, { scope: undefined })).text();
    expect(html).toContain('Read organization analytics');
    expect(html).not.toContain('budget overrides');
  });

  it('redirects with a code and the state unchanged on approve, and the code works', async () => {
    const { verifier, challenge } = pkcePair();
    const state = 'a b&c=d/é~';
    const approved = await decide(sim, await authorize(sim, { state, code_challenge: challenge }), 'approve');
    const back = redirected(approved);
    expect(`${back.origin}${back.pathname}`).toBe(REDIRECT);
    expect(back.searchParams.get('state')).toBe(state);
    const tokens = await exchange(sim, { code: back.searchParams.get('code')!, verifier, redirectUri: REDIRECT });
    expect(tokens.status).toBe(200);
  });

  it('redirects with access_denied and the state on deny', async () => {
    const back = redirected(await decide(sim, await authorize(sim), 'deny'));
    expect(back.searchParams.get('error')).toBe('access_denied');
    expect(back.searchParams.get('state')).toBe('st-1');
    expect(back.searchParams.has('code')).toBe(false);
  });

  it('refuses an unknown, answered or expired request on a page of its own', async () => {
    const consent = await authorize(sim);
    const html = await consent.clone().text();
    expect((await decide(sim, consent, 'approve')).status).toBe(302);
    const again = await decide(sim, new Response(html), 'approve');
    expect(again.status).toBe(400);
    expect(again.headers.get('location')).toBeNull();
    const late = await authorize(sim);
    sim.configure({ advance_ms: 61_000 });
    expect((await decide(sim, late, 'approve')).status).toBe(400);
  });
});

describe('auto-approve', () => {
  it('redirects with a code at once, and without a state parameter when none was sent', async () => {
    sim.oauth.setAutoApprove(true);
    const back = redirected(await authorize(sim, { state: undefined }));
    expect(back.searchParams.get('code')).toMatch(/^[\w-]{20,}/);
    expect(back.searchParams.has('state')).toBe(false);
  });
});

describe('requests refused back at the client', () => {
  it.each([
    [{ code_challenge: undefined }, 'invalid_request'],
    [{ code_challenge_method: 'plain' }, 'invalid_request'],
    [{ code_challenge_method: undefined }, 'invalid_request'],
    [{ code_challenge: 'too-short' }, 'invalid_request'],
    [{ code_challenge: `${'a'.repeat(42)}!` }, 'invalid_request'],
    [{ response_type: 'token' }, 'unsupported_response_type'],
    [{ response_type: undefined }, 'invalid_request'],
    [{ scope: 'read admin' }, 'invalid_scope'],
  ])('%j → %s, with the state', async (params, error) => {
    const back = redirected(await authorize(sim, params));
    expect(`${back.origin}${back.pathname}`).toBe(REDIRECT);
    expect(back.searchParams.get('error')).toBe(error);
    expect(back.searchParams.get('error_description')).toBeTruthy();
    expect(back.searchParams.get('state')).toBe('st-1');
  });
});

describe('redirect URIs', () => {
  it.each(['http://127.0.0.1:1/callback', 'http://127.0.0.1:65535/callback', 'http://127.0.0.1/callback'])(
    'accepts the registered loopback URI on any port: %s',
    async (uri) => {
      expect((await authorize(sim, { redirect_uri: uri })).status).toBe(200);
    },
  );

  it.each([
    'http://127.0.0.1:53122/other',
    'http://localhost:53122/callback',
    'http://127.0.0.1:53122/callback?x=1',
    'http://127.0.0.1:53122/callback#frag',
    'https://127.0.0.1:53122/callback',
    'http://127.0.0.1:53122@evil.example/callback',
    'http://evil.example/callback',
    'not a uri',
  ])('refuses %s with a 400 page and no redirect', async (uri) => {
    const res = await authorize(sim, { redirect_uri: uri });
    expect(res.status).toBe(400);
    expect(res.headers.get('location')).toBeNull();
    expect(await res.text()).toContain('not registered');
  });

  it('refuses an unknown or missing client without redirecting, even with an otherwise bad request', async () => {
    for (const client_id of ['someone-else', undefined]) {
      const res = await authorize(sim, { client_id, code_challenge: undefined });
      expect(res.status).toBe(400);
      expect(res.headers.get('location')).toBeNull();
      expect(await res.text()).toContain('client_id');
    }
  });

  it('matches registered URIs exactly, query included, when the host is not a loopback IP', async () => {
    const other = await startOAuthSimulator({ redirectUris: ['https://app.example/cb?tenant=1'] });
    try {
      expect((await authorize(other, { redirect_uri: 'https://app.example/cb?tenant=1' })).status).toBe(200);
      expect((await authorize(other, { redirect_uri: 'https://app.example:8443/cb?tenant=1' })).status).toBe(400);
      expect((await authorize(other, { redirect_uri: 'https://app.example/cb?tenant=2' })).status).toBe(400);
    } finally {
      await other.close();
    }
  });
});
