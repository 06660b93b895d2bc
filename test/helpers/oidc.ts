import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SignJWT, exportJWK, generateKeyPair, type JWTPayload } from 'jose';
import Provider from 'oidc-provider';

/** A real OpenID provider (oidc-provider) on loopback that issues signed JWT access tokens for one resource. */
export interface Issuer {
  url: string;
  /** A client_credentials token for `resource` with `scope`, from the provider's own token endpoint. */
  token(scope: string, resource: string): Promise<string>;
  /** A token signed with the provider's own (newest) key, with claims of the test's choosing (expired, another issuer). */
  forge(claims: JWTPayload): Promise<string>;
  /**
   * Rotates the signing keys as a provider does: a new key is published and signs from now on; `keep` says
   * whether the keys published so far stay published (tokens they signed still verify) or are removed.
   */
  rotateKeys(keep: boolean): Promise<void>;
  close(): Promise<void>;
}

const CLIENT = { id: 'team-client', secret: 'team-client-secret' };
export const PUBLIC_CLIENT_ID = 'mcp-client';
export const REDIRECT_URI = 'http://127.0.0.1:7777/callback';
/** Who signs in when a test walks through the authorization page. */
export const SIGNED_IN = 'alice@example.com';

/**
 * The sign-in and consent pages, approved at once for SIGNED_IN: the scopes and resource asked for are granted
 * (a test that needs a person to refuse would answer the interaction differently).
 */
async function approve(provider: InstanceType<typeof Provider>, req: IncomingMessage, res: ServerResponse) {
  const details = await provider.interactionDetails(req, res);
  const params = details.params as { client_id: string };
  const missing = details.prompt.details as {
    missingOIDCScope?: string[];
    missingResourceScopes?: Record<string, string[]>;
  };
  const grant = new provider.Grant({ accountId: SIGNED_IN, clientId: params.client_id });
  if (missing.missingOIDCScope?.length) grant.addOIDCScope(missing.missingOIDCScope.join(' '));
  for (const [resource, scopes] of Object.entries(missing.missingResourceScopes ?? {}))
    grant.addResourceScope(resource, scopes.join(' '));
  const grantId = await grant.save();
  await provider.interactionFinished(
    req,
    res,
    { login: { accountId: SIGNED_IN }, consent: { grantId } },
    { mergeWithLastSubmission: false },
  );
}

async function signingKey(kid: string) {
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  return { privateKey, jwk: { ...(await exportJWK(privateKey)), kid, alg: 'RS256', use: 'sig' } };
}

/** The provider publishing `jwks` (the first one signs), with the clients, scopes and resource the tests use. */
function newProvider(url: string, jwks: object[]): InstanceType<typeof Provider> {
  return new Provider(url, {
    clients: [
      {
        client_id: CLIENT.id,
        client_secret: CLIENT.secret,
        grant_types: ['client_credentials'],
        redirect_uris: [],
        response_types: [],
      },
      // An MCP client (public, PKCE) that signs a person in with the authorization code flow.
      {
        client_id: PUBLIC_CLIENT_ID,
        token_endpoint_auth_method: 'none',
        grant_types: ['authorization_code'],
        response_types: ['code'],
        redirect_uris: [REDIRECT_URI],
      },
    ],
    interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}` },
    jwks: { keys: jwks as never },
    pkce: { required: () => true },
    scopes: ['analytics:read', 'analytics:write'],
    features: {
      devInteractions: { enabled: false },
      clientCredentials: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => undefined,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx: unknown, resource: string) => ({
          scope: 'analytics:read analytics:write',
          audience: resource,
          accessTokenTTL: 300,
          accessTokenFormat: 'jwt',
        }),
      },
    },
  });
}

export async function startIssuer(): Promise<Issuer> {
  let keys = [await signingKey('test-key')];
  const http: Server = createServer();
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  let provider = newProvider(
    url,
    keys.map((k) => k.jwk),
  );
  let callback = provider.callback();
  http.on('request', (req, res) => {
    if (req.url?.startsWith('/interaction/')) void approve(provider, req, res);
    else void callback(req, res);
  });
  return {
    url,
    async token(scope, resource) {
      const response = await fetch(`${url}/token`, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          authorization: `Basic ${Buffer.from(`${CLIENT.id}:${CLIENT.secret}`).toString('base64')}`,
        },
        body: new URLSearchParams({ grant_type: 'client_credentials', scope, resource }),
      });
      const body = (await response.json()) as { access_token?: string; error?: string; error_description?: string };
      if (!body.access_token) throw new Error(`token endpoint: ${body.error}: ${body.error_description}`);
      return body.access_token;
    },
    forge: (claims) =>
      new SignJWT(claims)
        .setProtectedHeader({ alg: 'RS256', kid: keys[0]!.jwk.kid, typ: 'at+jwt' })
        .sign(keys[0]!.privateKey),
    async rotateKeys(keep) {
      const next = await signingKey(`test-key-${keys.length + 1}`);
      keys = keep ? [next, ...keys] : [next];
      provider = newProvider(
        url,
        keys.map((k) => k.jwk),
      );
      callback = provider.callback();
    },
    close: () => new Promise((resolve) => http.close(() => resolve())),
  };
}
