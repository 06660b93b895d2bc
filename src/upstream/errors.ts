/**
 * The one error family of the upstream layer. Upper layers map these once; each carries a message that
 * says what happened and, where one exists, what to do next.
 */
export type UpstreamErrorKind =
  | 'invalid_argument'
  | 'unauthenticated'
  | 'permission_denied'
  | 'rate_limited'
  | 'unavailable'
  | 'protocol'
  | 'timeout'
  | 'cancelled';

export abstract class UpstreamError extends Error {
  abstract readonly kind: UpstreamErrorKind;
  /** Whether the same request may succeed if tried again later. */
  abstract readonly retryable: boolean;
  /** True only when the request provably never reached the upstream (it failed while connecting). */
  readonly neverReached: boolean;
  constructor(
    message: string,
    /** The upstream endpoint path, when the error concerns one. */
    readonly endpoint?: string,
    options?: { cause?: unknown; neverReached?: boolean },
  ) {
    super(message, options);
    this.name = new.target.name;
    this.neverReached = options?.neverReached ?? false;
  }
}

/** The request was refused as invalid, by us before sending or by the upstream (400). */
export class InvalidArgumentError extends UpstreamError {
  readonly kind = 'invalid_argument';
  readonly retryable = false;
  constructor(
    message: string,
    endpoint?: string,
    /** True when the upstream said so; false when we refused it before sending. */
    readonly fromUpstream = false,
  ) {
    super(message, endpoint);
  }
}

export class UnauthenticatedError extends UpstreamError {
  readonly kind = 'unauthenticated';
  readonly retryable = false;
}

export class PermissionDeniedError extends UpstreamError {
  readonly kind = 'permission_denied';
  readonly retryable = false;
}

export class RateLimitedError extends UpstreamError {
  readonly kind = 'rate_limited';
  readonly retryable = true;
  constructor(
    message: string,
    endpoint: string | undefined,
    /** When the block is expected to lift (epoch ms). */
    readonly retryAt: number,
  ) {
    super(message, endpoint);
  }
}

export class UpstreamUnavailableError extends UpstreamError {
  readonly kind = 'unavailable';
  readonly retryable = true;
  constructor(
    message: string,
    endpoint?: string,
    readonly status?: number,
    options?: { cause?: unknown; neverReached?: boolean },
  ) {
    super(message, endpoint, options);
  }
}

/** The upstream answered something that is not what the API promises (malformed JSON, wrong types, a cursor loop). */
export class UpstreamProtocolError extends UpstreamError {
  readonly kind = 'protocol';
  readonly retryable = false;
}

export class TimeoutError extends UpstreamError {
  readonly kind = 'timeout';
  readonly retryable = true;
  constructor(
    message: string,
    endpoint: string | undefined,
    readonly phase: 'connect' | 'headers' | 'body',
    options?: { cause?: unknown; neverReached?: boolean },
  ) {
    super(message, endpoint, options);
  }
}

export class CancelledError extends UpstreamError {
  readonly kind = 'cancelled';
  readonly retryable = false;
  constructor(
    message: string,
    endpoint?: string,
    /** True when the request was already on its way: it may have been applied. */
    readonly afterSend = false,
  ) {
    super(message, endpoint);
  }
}

export function isUpstreamError(error: unknown): error is UpstreamError {
  return error instanceof UpstreamError;
}
