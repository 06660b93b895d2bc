import { createHash } from 'node:crypto';

/** What authenticates requests to the analytics API: a fixed service-account token, or a login that refreshes. */
export interface Credential {
  readonly kind: 'token' | 'login';
  /** Non-secret, and the same for as long as the same credential is in use: cache keys, buckets and file names carry it. */
  fingerprint(): string;
  /** The bearer token to send now (a login refreshes it first when it is about to expire). */
  bearer(signal?: AbortSignal): Promise<string>;
  /** After the upstream answered 401 to `sent`: another token to try once more, or undefined when there is none. */
  renew(sent: string, signal?: AbortSignal): Promise<string | undefined>;
}

/** What cache keys, Redis buckets, locks and file names carry instead of a secret: never the secret itself. */
export function credentialFingerprint(secret: string): string {
  return createHash('sha256').update(secret).digest('hex').slice(0, 16);
}

/** A service-account token: it never expires, so a 401 has no remedy here. */
export function tokenCredential(token: string): Credential {
  const fingerprint = credentialFingerprint(token);
  return {
    kind: 'token',
    fingerprint: () => fingerprint,
    bearer: () => Promise.resolve(token),
    renew: () => Promise.resolve(undefined),
  };
}
