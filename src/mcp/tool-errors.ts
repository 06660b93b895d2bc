import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import { toolErrorMessage, isKnownError } from '../tools/failure-text.js';
import type { Logger } from '../logger.js';
import type { Redactor } from '../privacy/redact.js';

/**
 * The funnel's words, redacted, as the JSON-RPC error of a request that has no isError result
 * (resources/read, prompts/get): arguments refused here or by the upstream are invalid params, anything else
 * an internal error.
 */
export function protocolErrorOf(error: unknown, redact: Redactor): ProtocolError {
  const refused = isKnownError(error) && (error.kind === 'user_input' || error.kind === 'invalid_argument');
  const code = refused ? ProtocolErrorCode.InvalidParams : ProtocolErrorCode.InternalError;
  return new ProtocolError(code, redact.text(toolErrorMessage(error)));
}

/** Known failures are expected (info); anything else is a bug, logged as an error with its stack. */
export function logFailure(log: Logger, message: string, error: unknown, fields: Record<string, unknown>): void {
  const detail = error instanceof Error ? error.message : String(error);
  if (isKnownError(error)) log.info(message, { ...fields, error: detail });
  else log.error(message, { ...fields, error: detail, ...(error instanceof Error ? { stack: error.stack } : {}) });
}

/** A request with no isError result failed: logs it (as logFailure) and gives its JSON-RPC error (as protocolErrorOf). */
export type ProtocolFailure = (error: unknown, message: string, fields: Record<string, unknown>) => ProtocolError;

/** The one funnel of the requests that have no isError result (resources/read, prompts/get), for one server. */
export function protocolFailure(log: Logger, redact: Redactor): ProtocolFailure {
  return (error, message, fields) => {
    logFailure(log, message, error, fields);
    return protocolErrorOf(error, redact);
  };
}
