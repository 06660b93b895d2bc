import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import { UserInputError } from '../../src/errors.js';
import type { Logger } from '../../src/logger.js';
import { logFailure, protocolErrorOf } from '../../src/mcp/tool-errors.js';
import { toolErrorMessage } from '../../src/tools/failure-text.js';
import {
  CancelledError,
  InvalidArgumentError,
  RateLimitedError,
  TimeoutError,
  UpstreamUnavailableError,
} from '../../src/upstream/errors.js';

const redactor = (secret: string) => ({
  text: (t: string) => t.split(secret).join('[redacted]'),
  value: <T>(v: T) => v,
});

describe('the one funnel: failures in words for the model', () => {
  it('words a refused argument like an invalid one, without blaming the upstream', () => {
    const local = toolErrorMessage(
      new UserInputError("Unknown pseudonym 'user-1a2b': use a pseudonym from an earlier answer"),
    );
    expect(local).toBe(
      "Unknown pseudonym 'user-1a2b': use a pseudonym from an earlier answer. Change the arguments and call again.",
    );
    expect(toolErrorMessage(new InvalidArgumentError('start_date is after end_date; swap them.'))).toBe(
      'start_date is after end_date; swap them. Change the arguments and call again.',
    );
    expect(local).not.toMatch(/analytics API|upstream/i);
  });

  it('says when a rate-limit block lifts', () => {
    const at = Date.UTC(2030, 0, 1, 12, 34, 56);
    expect(toolErrorMessage(new RateLimitedError('429', undefined, at))).toMatch(/Try again after 12:34:56 UTC/);
  });

  it('names the call budget when the whole call ran out of time', () => {
    expect(toolErrorMessage(new TimeoutError('42 s passed', undefined, 'call'))).toMatch(/--call-timeout/);
    expect(toolErrorMessage(new TimeoutError('no answer', undefined, 'headers'))).not.toMatch(/--call-timeout/);
  });

  it('says what happened to a write that may have landed', () => {
    const error = new UpstreamUnavailableError('connection reset', 'set-user-budget-overrides', undefined);
    error.request = { host: 'api', write: true, credential: 'token', attempts: 1 };
    expect(toolErrorMessage(error)).toMatch(/may or may not have been applied/);
  });

  it('words a cancellation', () => {
    expect(toolErrorMessage(new CancelledError('aborted'))).toBe('The request was cancelled before it finished.');
  });

  it('calls anything else a bug, with its message', () => {
    expect(toolErrorMessage(new TypeError('x is undefined'))).toBe(
      'Internal error in org-analytics-mcp: x is undefined. This is a bug; the details are in the server log. Try a different question or report it.',
    );
    expect(toolErrorMessage('thrown text')).toMatch(/^Internal error in org-analytics-mcp: thrown text\./);
  });
});

describe('the funnel for requests without an isError result', () => {
  it('refuses bad arguments as invalid params, in the same words', () => {
    const error = protocolErrorOf(new UserInputError("Unknown changelog client 'emacs'"), redactor('nothing'));
    expect(error).toBeInstanceOf(ProtocolError);
    expect(error.code).toBe(ProtocolErrorCode.InvalidParams);
    expect(error.message).toBe("Unknown changelog client 'emacs'. Change the arguments and call again.");
    expect(protocolErrorOf(new InvalidArgumentError('page must be a whole number'), redactor('x')).code).toBe(
      ProtocolErrorCode.InvalidParams,
    );
  });

  it('fails everything else as an internal error, redacted', () => {
    const outage = protocolErrorOf(new UpstreamUnavailableError('down', 'changelog', 503), redactor('x'));
    expect(outage.code).toBe(ProtocolErrorCode.InternalError);
    expect(outage.message).toMatch(/^The analytics API is unavailable: down\./);
    const bug = protocolErrorOf(new Error('token s3cr3t-token leaked'), redactor('s3cr3t-token'));
    expect(bug.code).toBe(ProtocolErrorCode.InternalError);
    expect(bug.message).toContain('token [redacted] leaked');
    expect(bug.message).not.toContain('s3cr3t-token');
  });
});

describe('logging a failure', () => {
  const recorder = () => {
    const lines: Array<{ level: string; message: string; fields?: Record<string, unknown> }> = [];
    const at = (level: string) => (message: string, fields?: Record<string, unknown>) =>
      lines.push({ level, message, fields });
    const log: Logger = { error: at('error'), warn: at('warn'), info: at('info'), debug: at('debug') };
    return { log, lines };
  };

  it('logs a refused argument as expected (info), without a stack', () => {
    const { log, lines } = recorder();
    logFailure(log, 'tool failed', new UserInputError('bad email'), { tool: 'get_credit_usage' });
    expect(lines).toEqual([
      { level: 'info', message: 'tool failed', fields: { tool: 'get_credit_usage', error: 'bad email' } },
    ]);
  });

  it('logs a bug as an error, with its stack', () => {
    const { log, lines } = recorder();
    logFailure(log, 'tool failed', new TypeError('x is undefined'), { tool: 'get_credit_usage' });
    expect(lines[0]).toMatchObject({
      level: 'error',
      fields: { error: 'x is undefined', stack: expect.stringContaining('TypeError') },
    });
  });
});
