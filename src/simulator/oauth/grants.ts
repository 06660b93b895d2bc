import { invalidGrant, OAuthError } from './errors.js';
import { isPkceValue, randomSecret, s256Challenge } from './pkce.js';
import type { AuthorizationRequest } from './pending-requests.js';
import { scopeText, type Scope } from './scopes.js';

export interface TokenResponse {
  access_token: string;
  token_type: 'Bearer';
  expires_in?: number;
  refresh_token?: string;
  scope?: string;
  user_email?: string;
}

export interface GrantSettings {
  accessTokenTtlSeconds: number;
  codeTtlSeconds: number;
  /** Which optional parts the token answer carries (see the simulator's options). */
  answer: { rotateRefreshTokens: boolean; scope: boolean; expiresIn: boolean; identity: boolean };
}

/** Everything descending from one authorization code: revoked together when a code or refresh token is replayed. */
interface Family {
  revoked: boolean;
}

interface IssuedCode extends AuthorizationRequest {
  family: Family;
  email: string;
  expiresAt: number;
  used: boolean;
}

interface AccessGrant {
  family: Family;
  scopes: Scope[];
  email: string;
  expiresAt: number;
}

interface RefreshGrant {
  family: Family;
  clientId: string;
  /** The scopes of the original grant: a refresh may narrow the access token, never this. */
  scopes: Scope[];
  email: string;
  used: boolean;
}

export type AccessLookup = { scopes: readonly Scope[]; email: string } | 'expired' | undefined;

/** Authorization codes, access and refresh tokens, and the grants they descend from, on the simulator's clock. */
export class OAuthGrants {
  private readonly codes = new Map<string, IssuedCode>();
  private readonly accessTokens = new Map<string, AccessGrant>();
  private readonly refreshTokens = new Map<string, RefreshGrant>();
  private readonly families = new Set<Family>();

  constructor(
    private readonly now: () => number,
    public settings: GrantSettings,
  ) {}

  issueCode(request: AuthorizationRequest, email: string): string {
    const family: Family = { revoked: false };
    this.families.add(family);
    const code = randomSecret('sim_code_');
    const expiresAt = this.now() + this.settings.codeTtlSeconds * 1000;
    this.codes.set(code, { ...request, family, email, expiresAt, used: false });
    return code;
  }

  exchangeCode(input: { code: string; clientId: string; redirectUri: string; codeVerifier: string }): TokenResponse {
    const issued = this.codes.get(input.code);
    if (!issued || issued.family.revoked) throw invalidGrant('The authorization code is unknown or revoked.');
    if (issued.used) {
      // RFC 6749 4.1.2: a replayed code may have been stolen, so what it already yielded is withdrawn.
      issued.family.revoked = true;
      throw invalidGrant('The authorization code was already used; the tokens issued from it are revoked.');
    }
    if (issued.expiresAt <= this.now()) throw invalidGrant('The authorization code has expired.');
    if (issued.clientId !== input.clientId) throw invalidGrant('The authorization code was issued to another client.');
    if (issued.redirectUri !== input.redirectUri)
      throw invalidGrant('redirect_uri differs from the one of the authorization request.');
    if (!isPkceValue(input.codeVerifier) || s256Challenge(input.codeVerifier) !== issued.codeChallenge)
      throw invalidGrant('code_verifier does not match the code_challenge of the authorization request.');
    issued.used = true;
    return this.issue(issued.family, issued.clientId, issued.scopes, issued.scopes, issued.email);
  }

  /** Rotates the refresh token; `scopes` (default: the original grant's) must lie within the original grant. */
  refresh(input: { refreshToken: string; clientId: string; scopes: Scope[] | undefined }): TokenResponse {
    const grant = this.refreshTokens.get(input.refreshToken);
    if (!grant || grant.family.revoked) throw invalidGrant('The refresh token is unknown or revoked.');
    if (grant.used) {
      // Rotation makes a replayed refresh token the sign of a leak: the whole family goes.
      grant.family.revoked = true;
      throw invalidGrant('The refresh token was already used; every token of its grant is revoked.');
    }
    if (grant.clientId !== input.clientId) throw invalidGrant('The refresh token was issued to another client.');
    const scopes = input.scopes ?? grant.scopes;
    if (scopes.some((scope) => !grant.scopes.includes(scope)))
      throw new OAuthError('invalid_scope', `The grant covers only '${scopeText(grant.scopes)}'.`);
    // RFC 6749 6: without a new refresh token in the answer, the one presented stays in force.
    const rotate = this.settings.answer.rotateRefreshTokens;
    if (rotate) grant.used = true;
    return this.issue(grant.family, grant.clientId, grant.scopes, scopes, grant.email, rotate);
  }

  /** What an access token grants: undefined if it was never issued, 'expired' once expired or revoked. */
  lookup(accessToken: string): AccessLookup {
    const grant = this.accessTokens.get(accessToken);
    if (!grant) return undefined;
    if (grant.family.revoked || grant.expiresAt <= this.now()) return 'expired';
    return { scopes: grant.scopes, email: grant.email };
  }

  /** As an administrator revoking the app: every code, access and refresh token stops working. */
  revokeAll(): void {
    for (const family of this.families) family.revoked = true;
    this.families.clear();
  }

  private issue(
    family: Family,
    clientId: string,
    grantScopes: Scope[],
    scopes: Scope[],
    email: string,
    withRefresh = true,
  ) {
    const accessToken = randomSecret('sim_at_');
    const ttl = this.settings.accessTokenTtlSeconds;
    this.accessTokens.set(accessToken, { family, scopes, email, expiresAt: this.now() + ttl * 1000 });
    const refreshToken = withRefresh ? randomSecret('sim_rt_') : undefined;
    if (refreshToken)
      this.refreshTokens.set(refreshToken, { family, clientId, scopes: grantScopes, email, used: false });
    const { answer } = this.settings;
    const response: TokenResponse = {
      access_token: accessToken,
      token_type: 'Bearer',
      ...(answer.expiresIn ? { expires_in: ttl } : {}),
      ...(refreshToken ? { refresh_token: refreshToken } : {}),
      ...(answer.scope ? { scope: scopeText(scopes) } : {}),
      ...(answer.identity ? { user_email: email } : {}),
    };
    return response;
  }
}
