import { describe, expect, expectTypeOf, it } from 'vitest';
import { UserInputError } from '../src/errors.js';
import { isKnownError, type ErrorKind, type KnownError } from '../src/tools/failure-text.js';
import {
  CancelledError,
  InvalidArgumentError,
  PermissionDeniedError,
  RateLimitedError,
  TimeoutError,
  UnauthenticatedError,
  UpstreamProtocolError,
  UpstreamUnavailableError,
  type UpstreamErrorKind,
} from '../src/upstream/errors.js';

describe('errors by origin', () => {
  it('a refused argument is a UserInputError, which never claims to come from the upstream', () => {
    const error = new UserInputError("Unknown pseudonym 'user-1a2b'");
    expect(error).toBeInstanceOf(Error);
    expect(error.kind).toBe('user_input');
    expect(error.name).toBe('UserInputError');
    expect(error).not.toHaveProperty('request');
    expect(error).not.toHaveProperty('endpoint');
  });

  it.each([
    new UserInputError('bad'),
    new InvalidArgumentError('bad', 'daily-usage'),
    new UnauthenticatedError('no'),
    new PermissionDeniedError('no'),
    new RateLimitedError('slow down', undefined, 0),
    new UpstreamUnavailableError('down', undefined, 503),
    new UpstreamProtocolError('garbled'),
    new TimeoutError('slow', undefined, 'call'),
    new CancelledError('stopped'),
  ])('knows a $name', (error) => {
    expect(isKnownError(error)).toBe(true);
  });

  it.each([
    new Error('boom'),
    new TypeError('x is undefined'),
    'a string',
    undefined,
    { kind: 'user_input', message: 'forged' },
  ])('takes anything else for a bug: %s', (error) => {
    expect(isKnownError(error)).toBe(false);
  });

  it('has one kind per origin: every upstream kind and user_input', () => {
    expectTypeOf<ErrorKind>().toEqualTypeOf<UpstreamErrorKind | 'user_input'>();
  });

  it('narrows to the class in a switch on kind', () => {
    const retryAt = (error: KnownError) => {
      switch (error.kind) {
        case 'rate_limited':
          expectTypeOf(error).toEqualTypeOf<RateLimitedError>();
          return error.retryAt;
        case 'timeout':
          expectTypeOf(error).toEqualTypeOf<TimeoutError>();
          return undefined;
        default:
          return undefined;
      }
    };
    expect(retryAt(new RateLimitedError('slow down', undefined, 42))).toBe(42);
    expect(retryAt(new UserInputError('bad'))).toBeUndefined();
  });
});
