/**
 * The one error family of the upstream layer. Upper layers map these once; each carries a message that
 * says what happened and, where one exists, what to do next.
 */
export type UpstreamErrorKind =
  | 'invalid_argument'
  | 'unauthenticated'
  | 'login_required'
  | 'permission_denied'
  | 'rate_limited'
  | 'unavailable'
  | 'protocol'
  | 'too_large'
  | 'timeout'
  | 'cancelled';

/** What the sender had done when it gave up: the words for the model depend on it. */
export interface RequestContext {
  /** api: the analytics API (ANALYTICS_BASE_URL); site: the public changelog (ANALYTICS_SITE_URL). */
  host: 'api' | 'site';
  /** A write is never resent once it may have landed. */
  write: boolean;
  /** How many times the request was sent, the first included. */
  attempts: number;
  /** What authenticated it: a service-account token, or a login (OAuth) that `org-analytics-mcp login` made. */
  credential: 'token' | 'login';
}

export interface UpstreamErrorOptions {
  cause?: unknown;
  neverReached?: boolean;
  /** The variable naming the proxy the request went through, when the failure was reaching that proxy. */
  proxyVariable?: string;
}

export abstract class UpstreamError extends Error {
  abstract readonly kind: UpstreamErrorKind;
  /** Whether the same request may succeed if tried again later. */
  abstract readonly retryable: boolean;
  /** True only when the request provably never reached the upstream (it failed while connecting). */
  readonly neverReached: boolean;
  readonly proxyVariable: string | undefined;
  /** Set by the sender (UpstreamSender) when it gives up on a request; undefined for errors raised outside one (local checks). */
  request: RequestContext | undefined;
  constructor(
    message: string,
    /** The upstream endpoint path, when the error concerns one. */
    readonly endpoint?: string,
    options?: UpstreamErrorOptions,
  ) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.neverReached = options?.neverReached ?? false;
    this.proxyVariable = options?.proxyVariable;
  }
}

/**
 * The upstream refused the request as invalid (400 InvalidArgument). Arguments refused here, before
 * anything is sent, are a UserInputError (src/errors.ts) instead: this one always comes from the upstream.
 */
export class InvalidArgumentError extends UpstreamError {
  readonly kind = 'invalid_argument';
  readonly retryable = false;
}

export class UnauthenticatedError extends UpstreamError {
  readonly kind = 'unauthenticated';
  readonly retryable = false;
}

/** Login is configured, but there is no usable login: none stored, or its refresh token expired or was revoked. */
export class LoginRequiredError extends UpstreamError {
  readonly kind = 'login_required';
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
    options?: UpstreamErrorOptions,
  ) {
    super(message, endpoint, options);
  }
}

/** The upstream answered something that is not what the API promises (malformed JSON, wrong types, a cursor loop). */
export class UpstreamProtocolError extends UpstreamError {
  readonly kind = 'protocol';
  readonly retryable = false;
}

/** A response larger than this server reads (--max-response-mb): cut off as it arrived, nothing of it kept. */
export class ResponseTooLargeError extends UpstreamError {
  readonly kind = 'too_large';
  readonly retryable = false;
  constructor(
    message: string,
    endpoint: string,
    /** The cap, in bytes. */
    readonly limitBytes: number,
  ) {
    super(message, endpoint);
  }
}

export class TimeoutError extends UpstreamError {
  readonly kind = 'timeout';
  readonly retryable = true;
  constructor(
    message: string,
    endpoint: string | undefined,
    /** attempt: one request's own deadline passed; call: the whole tool call's budget ran out. */
    readonly phase: 'connect' | 'headers' | 'body' | 'attempt' | 'call',
    options?: UpstreamErrorOptions,
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

/** Every concrete class of the upstream family: listed, so that the union below narrows on `kind`. */
export const UPSTREAM_FAILURES = [
  InvalidArgumentError,
  UnauthenticatedError,
  LoginRequiredError,
  PermissionDeniedError,
  RateLimitedError,
  UpstreamUnavailableError,
  UpstreamProtocolError,
  ResponseTooLargeError,
  TimeoutError,
  CancelledError,
] as const;
export type UpstreamFailure = InstanceType<(typeof UPSTREAM_FAILURES)[number]>;
