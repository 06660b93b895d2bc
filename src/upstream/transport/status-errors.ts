import type { z } from 'zod';
import type { Operation } from './operation.js';
import {
  InvalidArgumentError,
  PermissionDeniedError,
  RateLimitedError,
  UnauthenticatedError,
  UpstreamProtocolError,
  UpstreamUnavailableError,
} from '../errors.js';
import type { HttpResponse } from './http.js';
import { apiErrorSchema, changelogErrorSchema } from '../schemas.js';

/** The error an upstream status means, in the words the upstream gave, where it gave any. */
export function statusError(op: Operation<z.ZodType>, res: HttpResponse, now: number): Error {
  let message: string | undefined;
  let body: unknown;
  try {
    body = JSON.parse(res.text);
  } catch {
    body = undefined;
  }
  if (op.host === 'site') {
    const e = changelogErrorSchema.safeParse(body);
    if (e.success) message = [e.data.message ?? e.data.error, e.data.resolution].filter(Boolean).join(' ');
  } else {
    const e = apiErrorSchema.safeParse(body);
    if (e.success) message = e.data.error.message;
  }
  const said = message ? `: ${message}` : '';
  if (op.host === 'site' && (res.status === 401 || res.status === 403)) {
    const refused = `The public changelog refused the request (${res.status})${said}`;
    return res.status === 401
      ? new UnauthenticatedError(refused, op.name)
      : new PermissionDeniedError(refused, op.name);
  }
  switch (true) {
    case res.status === 400:
      return new InvalidArgumentError(message ?? `${op.name} refused the request (400).`, op.name);
    case res.status === 401:
      return new UnauthenticatedError(`The upstream rejected the API token (401)${said}`, op.name);
    case res.status === 403:
      return new PermissionDeniedError(`The API token lacks the permission for ${op.name} (403)${said}`, op.name);
    case res.status === 404:
      return new UpstreamProtocolError(
        `${op.path} was not found (404); the configured base URL is probably wrong.`,
        op.name,
      );
    case res.status === 429:
      return new RateLimitedError(`The upstream rate limit was exceeded${said}`, op.name, now + 10_000);
    case res.status >= 500:
      return new UpstreamUnavailableError(`${op.name} failed upstream (${res.status})${said}`, op.name, res.status);
    default:
      return new UpstreamProtocolError(`${op.name} answered an unexpected status ${res.status}${said}`, op.name);
  }
}
