import type { IncomingMessage } from 'node:http';
import { FORM_CONTENT_TYPE } from './authorize.js';
import type { OAuthContext } from './context.js';
import { OAuthError } from './errors.js';
import type { TokenResponse } from './grants.js';
import { parseScope } from './scopes.js';

function required(params: URLSearchParams, name: string): string {
  const value = params.get(name);
  if (value === null || value === '') throw new OAuthError('invalid_request', `${name} is required.`);
  return value;
}

/** The optional scope of a refresh: undefined (absent or empty) keeps the original grant. */
function refreshScopes(params: URLSearchParams) {
  const scope = parseScope(params.get('scope') ?? '');
  if ('unknown' in scope)
    throw new OAuthError('invalid_scope', `Unknown scope ${scope.unknown.map((s) => `'${s}'`).join(', ')}.`);
  return scope.scopes.length > 0 ? scope.scopes : undefined;
}

function grant(oauth: OAuthContext, req: IncomingMessage, raw: string): TokenResponse {
  if (!FORM_CONTENT_TYPE.test(req.headers['content-type'] ?? ''))
    throw new OAuthError('invalid_request', 'Send the token request as application/x-www-form-urlencoded.');
  const params = new URLSearchParams(raw);
  const repeated = [...new Set(params.keys())].filter((name) => params.getAll(name).length > 1);
  if (repeated.length > 0) throw new OAuthError('invalid_request', `Repeated parameter: ${repeated.join(', ')}.`);
  const grantType = required(params, 'grant_type');
  const clientId = required(params, 'client_id');
  if (clientId !== oauth.clientId) throw new OAuthError('invalid_client', `Unknown client_id '${clientId}'.`);
  switch (grantType) {
    case 'authorization_code':
      return oauth.grants.exchangeCode({
        code: required(params, 'code'),
        clientId,
        redirectUri: required(params, 'redirect_uri'),
        codeVerifier: required(params, 'code_verifier'),
      });
    case 'refresh_token':
      return oauth.grants.refresh({
        refreshToken: required(params, 'refresh_token'),
        clientId,
        scopes: refreshScopes(params),
      });
    default:
      throw new OAuthError(
        'unsupported_grant_type',
        `grant_type '${grantType}' is not supported; use authorization_code or refresh_token.`,
      );
  }
}

/** POST {path}/token (RFC 6749 4.1.3 and 6): the status and JSON body to answer with. */
export function answerToken(
  oauth: OAuthContext,
  req: IncomingMessage,
  raw: string,
): { status: number; body: TokenResponse | ReturnType<OAuthError['body']> } {
  try {
    return { status: 200, body: grant(oauth, req, raw) };
  } catch (error) {
    if (error instanceof OAuthError) return { status: error.status, body: error.body() };
    throw error;
  }
}
