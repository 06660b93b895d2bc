import { decodeProtectedHeader } from 'jose';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTeamServer, type TeamServer } from '../helpers/team-server.js';

const READ = 'analytics:read';

let team: TeamServer;
beforeAll(async () => {
  team = await startTeamServer({ users: 20, token: 'jwks-upstream', rateLimit: false });
});
afterAll(async () => {
  vi.useRealTimers();
  await team?.close();
});

/** The status of a tools/list sent with this bearer token. */
async function statusWith(token: string): Promise<number> {
  const res = await fetch(team.server.url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      authorization: `Bearer ${token}`,
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
  });
  await res.text();
  return res.status;
}

const now = () => Math.floor(Date.now() / 1000);
/** A token for this server valid for two hours, signed with the issuer's current key. */
const longToken = (sub: string) =>
  team.issuer.forge({ iss: team.issuer.url, aud: team.publicUrl, sub, scope: READ, iat: now(), exp: now() + 7_200 });

describe("the issuer's key rotation", () => {
  it('accepts tokens signed with a new key once it is published, and refuses those of a key that was removed', async () => {
    // Only Date moves (jose times its JWKS cache and refetch cooldown with it); timers and sockets stay real.
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
    const before = await longToken('before-rotation');
    expect(await statusWith(before)).toBe(200);

    // The provider publishes a new key next to the old one and signs with it from now on.
    await team.issuer.rotateKeys(true);
    vi.advanceTimersByTime(31_000);
    const fromProvider = await team.issuer.token(READ, team.publicUrl);
    expect(decodeProtectedHeader(fromProvider).kid).toBe('test-key-2');
    // A key the server has not seen makes it fetch the key set again.
    expect(await statusWith(fromProvider)).toBe(200);
    expect(await statusWith(before)).toBe(200);

    // Then the old key is removed. Once the server's copy of the key set is stale, it fetches it again.
    await team.issuer.rotateKeys(false);
    vi.advanceTimersByTime(11 * 60_000);
    const after = await longToken('after-rotation');
    expect(decodeProtectedHeader(after).kid).toBe('test-key-3');
    expect(await statusWith(before)).toBe(401);
    expect(await statusWith(after)).toBe(200);
  });

  it('refuses a token of a removed key as soon as a token of the new key has made the server refetch', async () => {
    vi.advanceTimersByTime(31_000);
    const old = await longToken('old-key');
    await team.issuer.rotateKeys(false);
    const fresh = await longToken('new-key');
    expect(await statusWith(fresh)).toBe(200);
    expect(await statusWith(old)).toBe(401);
  });
});
