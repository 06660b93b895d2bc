import { OAuthError, OAuthErrorCode, type AuthInfo, type OAuthTokenVerifier } from '@modelcontextprotocol/server';
import { ApiKeyStore, KEY_PREFIX } from './api-keys.js';
import { READ_SCOPE, WRITE_SCOPE, type Caller } from './caller.js';
import { CLOCK_TOLERANCE_S, JwtVerifier } from './jwt-verifier.js';

export interface AuthSettings {
  /** The URL clients use for /mcp: the audience of JWTs, and the `resource` of the metadata. */
  publicUrl?: string;
  authIssuer?: string;
  apiKeysFile?: string;
  tenantClaim?: string;
}

/** An API key does not expire; the SDK's bearer check wants an expiry, so it gets one an hour ahead. */
const KEY_VALIDITY_S = 3600;

/**
 * Tells who a bearer token belongs to: an API key from the keys file (they start with `oam_`), or else a JWT
 * from the configured authorization server. The caller rides in `AuthInfo.extra.caller`.
 */
export class Authenticator implements OAuthTokenVerifier {
  private readonly jwt: JwtVerifier | undefined;
  private readonly keys: ApiKeyStore | undefined;

  constructor(private readonly settings: AuthSettings) {
    if (settings.authIssuer && settings.publicUrl)
      this.jwt = new JwtVerifier(settings.authIssuer, settings.publicUrl, settings.tenantClaim);
    if (settings.apiKeysFile) this.keys = new ApiKeyStore(settings.apiKeysFile);
  }

  async verifyAccessToken(token: string): Promise<AuthInfo> {
    const resource = this.settings.publicUrl ? new URL(this.settings.publicUrl) : undefined;
    if (token.startsWith(KEY_PREFIX)) {
      const entry = this.keys?.verify(token);
      if (!entry) throw new OAuthError(OAuthErrorCode.InvalidToken, 'the API key is not known here, or was revoked');
      const caller: Caller = { id: entry.id, via: 'api-key', role: entry.role, tenant: entry.tenant };
      return infoOf(token, caller, Math.floor(Date.now() / 1000) + KEY_VALIDITY_S, resource);
    }
    if (!this.jwt)
      throw new OAuthError(
        OAuthErrorCode.InvalidToken,
        'this server accepts API keys only (org-analytics-mcp api-key create)',
      );
    const { caller, exp } = await this.jwt.verify(token);
    // jose has already allowed for clock skew; the SDK compares expiresAt with its own clock, without leeway.
    return infoOf(token, caller, exp + CLOCK_TOLERANCE_S, resource);
  }
}

function infoOf(token: string, caller: Caller, expiresAt: number, resource: URL | undefined): AuthInfo {
  return {
    token,
    clientId: caller.id,
    scopes: caller.role === 'write' ? [READ_SCOPE, WRITE_SCOPE] : [READ_SCOPE],
    expiresAt,
    ...(resource ? { resource } : {}),
    extra: { caller },
  };
}

/** The caller an authenticated request carries, if any. */
export function callerOf(info: AuthInfo | undefined): Caller | undefined {
  return info?.extra?.caller as Caller | undefined;
}
