import type { IncomingMessage } from 'node:http';
import { ApiError } from './errors.js';
import type { OAuthGrants } from '../oauth/grants.js';
import type { Scope } from '../oauth/scopes.js';
import type { RequestLogEntry } from './request-log.js';

/** The tokens configured at start-up: the read-write token and the optional read-only one. */
export type StaticTokens = ReadonlyMap<string, 'read' | 'write'>;

/** What the request's bearer token grants, and how the request log names it. */
export interface Access {
  auth: RequestLogEntry['auth'];
  scopes: readonly Scope[];
}

/** The bearer token as sent (trimmed), or undefined when there is no usable Authorization header. */
export function bearerOf(req: IncomingMessage): string | undefined {
  const match = /^Bearer\s+(.+)$/i.exec(req.headers.authorization ?? '');
  return match ? match[1]!.trim() : undefined;
}

/** A configured token first, then an OAuth access token; an OAuth token logs as 'write' when it may write. */
export function accessOf(
  sim: { staticTokens: StaticTokens; oauth: { grants: OAuthGrants } },
  req: IncomingMessage,
): Access {
  if (!req.headers.authorization) return { auth: 'none', scopes: [] };
  const token = bearerOf(req);
  if (token === undefined) return { auth: 'invalid', scopes: [] };
  const configured = sim.staticTokens.get(token);
  if (configured) return { auth: configured, scopes: configured === 'write' ? ['read', 'write'] : ['read'] };
  const granted = sim.oauth.grants.lookup(token);
  if (granted === 'expired') return { auth: 'expired', scopes: [] };
  if (granted) return { auth: granted.scopes.includes('write') ? 'write' : 'read', scopes: granted.scopes };
  return { auth: 'invalid', scopes: [] };
}

const MISSING_SCOPE: Record<Scope, string> = {
  read: 'This token lacks the read scope needed to read analytics, usage and budget configuration.',
  write: 'This token lacks the write scope needed to change budget overrides.',
};

/** Throws the 401 or 403 a route answers when the token is missing, unknown, expired or lacks the scope. */
export function requireScope(access: Access, scope: Scope): void {
  if (access.auth === 'none' || access.auth === 'invalid') {
    throw new ApiError(
      401,
      'Unauthenticated',
      'Missing or invalid authentication token; send Authorization: Bearer <API_TOKEN>.',
      { 'www-authenticate': 'Bearer' },
    );
  }
  // RFC 6750 3.1: invalid_token tells an OAuth client to refresh or sign in again rather than give up.
  if (access.auth === 'expired') {
    throw new ApiError(401, 'Unauthenticated', 'The access token has expired or was revoked.', {
      'www-authenticate': 'Bearer error="invalid_token"',
    });
  }
  if (!access.scopes.includes(scope)) throw new ApiError(403, 'PermissionDenied', MISSING_SCOPE[scope]);
}
