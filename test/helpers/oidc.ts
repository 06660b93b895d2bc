import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SignJWT, exportJWK, generateKeyPair, type JWTPayload } from 'jose';
import Provider from 'oidc-provider';

/** A real OpenID provider (oidc-provider) on loopback that issues signed JWT access tokens for one resource. */
export interface Issuer {
  url: string;
  /** A client_credentials token for `resource` with `scope`, from the provider's own token endpoint. */
  token(scope: string, resource: string): Promise<string>;
  /** A token signed with the provider's own key, with claims of the test's choosing (expired, another issuer). */
  forge(claims: JWTPayload): Promise<string>;
  close(): Promise<void>;
}

const CLIENT = { id: 'team-client', secret: 'team-client-secret' };

export async function startIssuer(): Promise<Issuer> {
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const jwk = { ...(await exportJWK(privateKey)), kid: 'test-key', alg: 'RS256', use: 'sig' };
  const http: Server = createServer();
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  const provider = new Provider(url, {
    clients: [
      {
        client_id: CLIENT.id,
        client_secret: CLIENT.secret,
        grant_types: ['client_credentials'],
        redirect_uris: [],
        response_types: [],
      },
    ],
    jwks: { keys: [jwk] },
    scopes: ['analytics:read', 'analytics:write'],
    features: {
      devInteractions: { enabled: false },
      clientCredentials: { enabled: true },
      resourceIndicators: {
        enabled: true,
        getResourceServerInfo: (_ctx: unknown, resource: string) => ({
          scope: 'analytics:read analytics:write',
          audience: resource,
          accessTokenTTL: 300,
          accessTokenFormat: 'jwt',
        }),
      },
    },
  });
  http.on('request', provider.callback());
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
      new SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid: jwk.kid, typ: 'at+jwt' }).sign(privateKey),
    close: () => new Promise((resolve) => http.close(() => resolve())),
  };
}
