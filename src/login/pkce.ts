import { createHash, randomBytes } from 'node:crypto';

/** RFC 7636: a 43-character verifier (32 random bytes) and its S256 challenge. */
export function newPkce(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

export const newState = () => randomBytes(16).toString('base64url');
