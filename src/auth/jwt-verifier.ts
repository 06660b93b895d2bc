import { createRemoteJWKSet, errors, jwtVerify, type JWTPayload } from 'jose';
import { OAuthError, OAuthErrorCode } from '@modelcontextprotocol/server';
import { READ_SCOPE, WRITE_SCOPE, type Caller } from './caller.js';

/** A token that expired less than this ago still passes: clocks of issuer and server may disagree. */
export const CLOCK_TOLERANCE_S = 60;

type KeySet = ReturnType<typeof createRemoteJWKSet>;

const ASYMMETRIC = [
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
  'Ed25519',
];

/**
 * Checks bearer JWTs from one authorization server: signature against its published keys (found from its
 * metadata, fetched once), issuer, audience (this server's public URL, RFC 8707) and expiry. The key set
 * follows a rotation: it is fetched again for a key it does not hold (at most every 30 s) and once it is
 * 10 minutes old, so a new key verifies and a removed one stops verifying (jose's defaults).
 */
export class JwtVerifier {
  private keys: Promise<KeySet> | undefined;

  constructor(
    private readonly issuer: string,
    private readonly audience: string,
    private readonly tenantClaim = 'tenant',
  ) {}

  /** The caller and the token's expiry (epoch s). */
  async verify(token: string): Promise<{ caller: Caller; exp: number }> {
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, await this.keySet(), {
        issuer: this.issuer,
        audience: this.audience,
        clockTolerance: CLOCK_TOLERANCE_S,
        // Signatures with the issuer's published (asymmetric) keys only: never an HMAC keyed by something public.
        algorithms: ASYMMETRIC,
        requiredClaims: ['exp'],
      }));
    } catch (error) {
      throw new OAuthError(OAuthErrorCode.InvalidToken, reasonOf(error));
    }
    const scopes = scopesOf(payload);
    if (!scopes.includes(READ_SCOPE))
      throw new OAuthError(OAuthErrorCode.InsufficientScope, `the token does not grant ${READ_SCOPE}`);
    // Audit lines name the caller: an email only when the issuer vouches for it, else the subject.
    const email = typeof payload.email === 'string' && payload.email_verified === true ? payload.email : undefined;
    const tenant = payload[this.tenantClaim];
    const caller: Caller = {
      id: email ?? payload.sub ?? 'unknown subject',
      via: 'jwt',
      role: scopes.includes(WRITE_SCOPE) ? 'write' : 'read',
      tenant: typeof tenant === 'string' && tenant ? tenant : null,
    };
    return { caller, exp: payload.exp! };
  }

  private keySet(): Promise<KeySet> {
    this.keys ??= discoverKeys(this.issuer).catch((error: unknown) => {
      // Not kept: the next request tries the discovery again.
      this.keys = undefined;
      throw error;
    });
    return this.keys;
  }
}

/** The issuer's jwks_uri, from its OAuth (RFC 8414) or OpenID Connect metadata. */
async function discoverKeys(issuer: string): Promise<KeySet> {
  const base = issuer.replace(/\/+$/, '');
  for (const path of ['/.well-known/oauth-authorization-server', '/.well-known/openid-configuration']) {
    const response = await fetch(`${base}${path}`, { signal: AbortSignal.timeout(5_000) }).catch(() => undefined);
    if (!response?.ok) continue;
    const metadata = (await response.json().catch(() => ({}))) as { jwks_uri?: unknown };
    if (typeof metadata.jwks_uri === 'string') return createRemoteJWKSet(new URL(metadata.jwks_uri));
  }
  throw new OAuthError(
    OAuthErrorCode.TemporarilyUnavailable,
    `the authorization server ${issuer} did not publish its keys (jwks_uri); try again later`,
  );
}

function scopesOf(payload: JWTPayload): string[] {
  if (typeof payload.scope === 'string') return payload.scope.split(' ').filter(Boolean);
  if (Array.isArray(payload.scp)) return payload.scp.filter((s): s is string => typeof s === 'string');
  return [];
}

function reasonOf(error: unknown): string {
  if (error instanceof errors.JWTExpired) return 'the token has expired';
  if (error instanceof errors.JWTClaimValidationFailed) return `the token's ${error.claim} claim is not accepted here`;
  if (error instanceof errors.JWSSignatureVerificationFailed || error instanceof errors.JWKSNoMatchingKey)
    return 'the token is not signed by the authorization server';
  return 'the token is not a valid JWT access token';
}
