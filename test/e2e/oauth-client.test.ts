import {
  Client,
  StreamableHTTPClientTransport,
  UnauthorizedError,
  type OAuthClientProvider,
} from '@modelcontextprotocol/client';
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PUBLIC_CLIENT_ID, REDIRECT_URI, SIGNED_IN, type Issuer } from '../helpers/oidc.js';
import { startTeamServer, type TeamServer } from '../helpers/team-server.js';

let team: TeamServer;
let issuer: Issuer;
let server: { url: string };

beforeAll(async () => {
  team = await startTeamServer({ users: 40, rateLimit: false, token: 'oauth-upstream' });
  ({ issuer, server } = team);
});
afterAll(() => team?.close());

/** What an MCP client app keeps: its registration, the PKCE verifier and the tokens; the "browser" follows the link. */
class AppProvider implements OAuthClientProvider {
  saved: { access_token: string; scope?: string } | undefined;
  verifier = '';
  visited: URL | undefined;
  get redirectUrl() {
    return REDIRECT_URI;
  }
  get clientMetadata() {
    return { client_name: 'test app', redirect_uris: [REDIRECT_URI], token_endpoint_auth_method: 'none' };
  }
  clientInformation() {
    return { client_id: PUBLIC_CLIENT_ID };
  }
  tokens() {
    return this.saved as never;
  }
  saveTokens(tokens: { access_token: string; scope?: string }) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.visited = url;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
}

/** The person's browser: follows redirects with its cookies until the provider sends it back to the app. */
async function signIn(start: URL): Promise<URLSearchParams> {
  const cookies = new Map<string, string>();
  let url = start;
  for (let hop = 0; hop < 10; hop++) {
    if (url.href.startsWith(REDIRECT_URI)) {
      if (!url.searchParams.get('code')) throw new Error(`no code: ${url.search}`);
      // The whole callback: the code, and the issuer (RFC 9207) that the client checks.
      return url.searchParams;
    }
    const res = await fetch(url, {
      redirect: 'manual',
      headers: { cookie: [...cookies].map(([k, v]) => `${k}=${v}`).join('; ') },
    });
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(';');
      const [k, v] = pair!.split('=');
      cookies.set(k!, v ?? '');
    }
    const location = res.headers.get('location');
    if (!location)
      throw new Error(
        `stopped at ${url} with ${res.status}: ${(await res.text())
          .split('<pre>')
          .slice(1)
          .join(' ')
          .replace(/<[^>]+>/g, ' ')
          .slice(0, 400)}`,
      );
    url = new URL(location, url);
  }
  throw new Error('too many redirects');
}

describe("the SDK client's own OAuth, end to end", () => {
  it('discovers the issuer from the 401, signs in with code + PKCE, and then calls, as the signed-in person', async () => {
    const provider = new AppProvider();
    const transport = new StreamableHTTPClientTransport(new URL(server.url), { authProvider: provider });
    const client = new Client({ name: 'oauth-app', version: '1.0.0' });
    await expect(client.connect(transport)).rejects.toBeInstanceOf(UnauthorizedError);
    // The 401 pointed at our metadata, which named the issuer; the app was sent to its authorization page, with PKCE.
    expect(provider.visited?.origin).toBe(issuer.url);
    expect(provider.visited?.searchParams.get('code_challenge_method')).toBe('S256');
    expect(provider.visited?.searchParams.get('resource')).toBe(server.url);
    await transport.finishAuth(await signIn(provider.visited!));
    expect(provider.saved?.access_token).toBeTruthy();

    const again = new Client({ name: 'oauth-app', version: '1.0.0' });
    await again.connect(new StreamableHTTPClientTransport(new URL(server.url), { authProvider: provider }));
    try {
      const tools = (await again.listTools()).tools.map((t) => t.name);
      expect(tools).toContain('get_active_user_counts');
      // Asked for analytics:read, as the 401 said: the write tool stays hidden.
      expect(tools).not.toContain('set_budget_overrides');
      const r = await again.callTool({ name: 'get_active_user_counts', arguments: { range: 'last_7_days' } });
      expect(r.isError).toBeFalsy();
      // The token the app holds is the person's, for this server only (RFC 8707), as the server checked.
      const claims = decodeJwt(provider.saved!.access_token);
      expect(claims).toMatchObject({ sub: SIGNED_IN, aud: server.url, iss: issuer.url, scope: 'analytics:read' });
    } finally {
      await again.close();
    }
  });
});
