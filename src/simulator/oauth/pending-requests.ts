import { randomSecret } from './pkce.js';
import type { Scope } from './scopes.js';

/** A validated authorization request, waiting for consent or for its code to be issued. */
export interface AuthorizationRequest {
  clientId: string;
  /** As the client sent it, port included: the token request must repeat it exactly. */
  redirectUri: string;
  scopes: Scope[];
  state: string | undefined;
  codeChallenge: string;
}

/** Authorization requests whose consent page is open, each under an unguessable id that lives as long as a code. */
export class PendingRequests {
  private readonly held = new Map<string, AuthorizationRequest & { expiresAt: number }>();

  constructor(
    private readonly now: () => number,
    private readonly ttlSeconds: () => number,
  ) {}

  hold(request: AuthorizationRequest): string {
    for (const [id, held] of this.held) if (held.expiresAt <= this.now()) this.held.delete(id);
    const id = randomSecret('sim_req_');
    this.held.set(id, { ...request, expiresAt: this.now() + this.ttlSeconds() * 1000 });
    return id;
  }

  /** The held request, once; undefined when unknown, already decided or expired. */
  release(id: string): AuthorizationRequest | undefined {
    const held = this.held.get(id);
    this.held.delete(id);
    if (!held || held.expiresAt <= this.now()) return undefined;
    const { expiresAt: _expiresAt, ...request } = held;
    return request;
  }
}
