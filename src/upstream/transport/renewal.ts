import type { Credential } from '../credential.js';
import type { HttpResponse } from './http.js';
import type { SendWith } from './operation.js';
import { notRetried } from './retry.js';

/**
 * Sends with `bearer`, and after a 401 renews it and sends once more, at most once per call: a 401 means
 * the request was refused before anything happened, so even a write may go again. The renewed token is
 * kept for the sends after it (retries). No bearer (the public changelog): nothing to renew.
 */
export function withRenewal(
  credential: Credential,
  bearer: string | undefined,
  signal: AbortSignal | undefined,
  send: SendWith,
): () => Promise<HttpResponse> {
  let renewed = false;
  return async () => {
    const res = await send(bearer);
    if (res.status !== 401 || !bearer || renewed) return res;
    renewed = true;
    // Its failure (the sign-in service down, the login revoked) is the answer: not a reason to resend.
    const next = await credential.renew(bearer, signal).catch(notRetried);
    if (next === undefined) return res;
    bearer = next;
    return send(bearer);
  };
}
