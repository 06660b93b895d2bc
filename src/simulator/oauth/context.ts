import type { SimClock } from '../clock.js';
import type { ResolvedSimulatorOptions } from '../options.js';
import type { Organization } from '../data/organization.js';
import { OAuthGrants } from './grants.js';
import { PendingRequests } from './pending-requests.js';

/** The authorization server's state: its one registered client, pending consents, grants and switches. */
export interface OAuthContext {
  path: string;
  clientId: string;
  redirectUris: readonly string[];
  /** Skip the consent page: /authorize redirects with a code at once. */
  autoApprove: boolean;
  /** The person who signs in and approves: the organization's first user. */
  email: string;
  pending: PendingRequests;
  grants: OAuthGrants;
}

export function createOAuthContext(
  options: ResolvedSimulatorOptions['oauth'],
  clock: SimClock,
  org: Organization,
): OAuthContext {
  const now = () => clock.now();
  const grants = new OAuthGrants(now, {
    accessTokenTtlSeconds: options.accessTokenTtlSeconds,
    codeTtlSeconds: options.codeTtlSeconds,
    answer: options.answer,
  });
  const person = org.identities.find((identity) => identity.kind !== 'service_account');
  return {
    path: options.path,
    clientId: options.clientId,
    redirectUris: [...options.redirectUris],
    autoApprove: options.autoApprove,
    email: person?.id ?? `admin@${org.domain}`,
    pending: new PendingRequests(now, () => grants.settings.codeTtlSeconds),
    grants,
  };
}
