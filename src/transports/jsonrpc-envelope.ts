import { deserializeMessage, INVALID_REQUEST, PARSE_ERROR } from '@modelcontextprotocol/server';

/** The JSON-RPC error a line gets instead of being read; the id only when the line names one (MCP has no null id). */
export interface EnvelopeError {
  code: number;
  message: string;
  id?: string | number;
}

const ONE_PER_LINE = 'Send one JSON-RPC 2.0 message (a JSON object) per line.';

/**
 * What JSON-RPC answers a line that is no message (the SDK's stdio transport drops it silently, leaving
 * the client to wait): -32700 for text that is not JSON, -32600 for JSON that is not one JSON-RPC 2.0
 * request, notification or response (a batch, a bare value, another "jsonrpc"). Undefined for a line the
 * transport reads, and for a blank line, which it skips.
 */
export function envelopeError(line: string): EnvelopeError | undefined {
  const text = line.replace(/\r?\n?$/, '');
  if (text.trim() === '') return undefined;
  try {
    deserializeMessage(text);
    return undefined;
  } catch (error) {
    if (error instanceof SyntaxError)
      return { code: PARSE_ERROR, message: `Parse error: the line is not valid JSON. ${ONE_PER_LINE}` };
  }
  const value = JSON.parse(text) as unknown;
  if (Array.isArray(value))
    return {
      code: INVALID_REQUEST,
      message: `Invalid Request: a batch (a JSON array) is not accepted over MCP. ${ONE_PER_LINE}`,
    };
  if (typeof value !== 'object' || value === null)
    return { code: INVALID_REQUEST, message: `Invalid Request: a message is a JSON object. ${ONE_PER_LINE}` };
  const { id, jsonrpc } = value as { id?: unknown; jsonrpc?: unknown };
  const named = typeof id === 'string' || Number.isInteger(id) ? { id: id as string | number } : {};
  const why =
    jsonrpc !== '2.0'
      ? `"jsonrpc" must be "2.0", not ${JSON.stringify(jsonrpc ?? null).slice(0, 40)}`
      : 'not a request ("id", "method", optional "params" object), a notification ("method") or a response ("id" with "result" or "error")';
  return { code: INVALID_REQUEST, message: `Invalid Request: ${why}.`, ...named };
}
