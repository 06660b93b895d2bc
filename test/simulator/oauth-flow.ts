import { createHash, randomBytes } from 'node:crypto';
import { startSimulator, type Simulator, type SimulatorOptions } from '../../src/simulator/index.js';

/** A loopback redirect URI on a port of the client's choosing, as a native app's would be. */
export const REDIRECT = 'http://127.0.0.1:53122/callback';
export const NOW = '2026-11-21T10:00:00.000Z';

export const startOAuthSimulator = (oauth: SimulatorOptions['oauth'] = {}) =>
  startSimulator({ users: 20, now: NOW, rateLimit: false, warm: false, token: 'rw-token', oauth });

export function pkcePair() {
  const verifier = randomBytes(48).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/** GET {authUrl}/authorize with sensible parameters; `undefined` leaves one out. */
export function authorize(sim: Simulator, params: Record<string, string | undefined> = {}) {
  const url = new URL(`${sim.authUrl}/authorize`);
  const all: Record<string, string | undefined> = {
    response_type: 'code',
    client_id: sim.oauthClientId,
    redirect_uri: REDIRECT,
    scope: 'read write',
    state: 'st-1',
    code_challenge: pkcePair().challenge,
    code_challenge_method: 'S256',
    ...params,
  };
  for (const [name, value] of Object.entries(all)) if (value !== undefined) url.searchParams.set(name, value);
  return fetch(url, { redirect: 'manual' });
}

/** The query of the redirect a response sends the browser to. */
export function redirected(res: Response): URL {
  const location = res.headers.get('location');
  if (res.status !== 302 || !location) throw new Error(`expected a redirect, got ${res.status}`);
  return new URL(location);
}

/** Posts the consent form the way a browser would after a click on one of its buttons. */
export async function decide(sim: Simulator, consent: Response, decision: 'approve' | 'deny') {
  const html = await consent.text();
  const form = /<form method="post" action="([^"]+)">/.exec(html);
  const request = /<input type="hidden" name="request" value="([^"]+)">/.exec(html);
  if (!form || !request) throw new Error(`no consent form in: ${html}`);
  return fetch(new URL(form[1]!, sim.url), {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ request: request[1]!, decision }),
  });
}

export async function token(sim: Simulator, params: Record<string, string>, contentType?: string) {
  const res = await fetch(`${sim.authUrl}/token`, {
    method: 'POST',
    headers: { 'content-type': contentType ?? 'application/x-www-form-urlencoded' },
    body: contentType?.includes('json') ? JSON.stringify(params) : new URLSearchParams(params),
  });
  return { status: res.status, headers: res.headers, body: (await res.json()) as any };
}

/** Consent (approved) and a code, for the given scope. */
export async function codeFor(sim: Simulator, scope = 'read write', redirectUri = REDIRECT) {
  const { verifier, challenge } = pkcePair();
  let res = await authorize(sim, { scope, code_challenge: challenge, redirect_uri: redirectUri });
  if (res.status === 200) res = await decide(sim, res, 'approve');
  const code = redirected(res).searchParams.get('code');
  if (!code) throw new Error(`no code in ${res.headers.get('location')}`);
  return { code, verifier, redirectUri };
}

export const exchange = (sim: Simulator, grant: { code: string; verifier: string; redirectUri: string }) =>
  token(sim, {
    grant_type: 'authorization_code',
    client_id: sim.oauthClientId,
    code: grant.code,
    redirect_uri: grant.redirectUri,
    code_verifier: grant.verifier,
  });

/** The whole sign-in: the token response body. */
export async function signIn(sim: Simulator, scope = 'read write') {
  const answer = await exchange(sim, await codeFor(sim, scope));
  if (answer.status !== 200) throw new Error(`token exchange answered ${answer.status}`);
  return answer.body as { access_token: string; refresh_token: string; scope: string; expires_in: number };
}

export const refresh = (sim: Simulator, refreshToken: string, extra: Record<string, string> = {}) =>
  token(sim, { grant_type: 'refresh_token', client_id: sim.oauthClientId, refresh_token: refreshToken, ...extra });

export const dauCount = (sim: Simulator, accessToken: string) =>
  fetch(`${sim.url}/analytics/v0/dau-count`, { headers: { authorization: `Bearer ${accessToken}` } });
