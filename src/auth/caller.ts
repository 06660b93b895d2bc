import type { Role } from './api-keys.js';

export const READ_SCOPE = 'analytics:read';
export const WRITE_SCOPE = 'analytics:write';
export const SCOPES = [READ_SCOPE, WRITE_SCOPE] as const;

/** Who is calling over HTTP, once authenticated: what audit and access lines name, and what it may do. */
export interface Caller {
  /** The token's email or subject, or the API key's id. */
  id: string;
  via: 'jwt' | 'api-key';
  role: Role;
  /** The organization the caller belongs to (a claim of its token, or its key's), when there is one. */
  tenant: string | null;
}
