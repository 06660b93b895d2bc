import type { JSONRPCMessage, McpServer, Transport } from '@modelcontextprotocol/server';

/**
 * The name an argument called "__proto__" travels under from the wire to the argument check. JSON.parse
 * keeps it as an own key, but the SDK rebuilds `arguments` by assignment, which drops it without a word;
 * renamed, it reaches the check and is refused like any other unknown name.
 */
export const PROTO_ARGUMENT = '\u0000__proto__';

/** Makes every transport this server connects to hand over "__proto__" arguments renamed (see PROTO_ARGUMENT). */
export function keepProtoArguments(server: McpServer): void {
  const connect = server.connect.bind(server);
  server.connect = (transport: Transport) => {
    let handler: Transport['onmessage'];
    Object.defineProperty(transport, 'onmessage', {
      configurable: true,
      get: () => handler,
      set: (next: Transport['onmessage']) => {
        handler = next && ((message, extra) => next(renamed(message), extra));
      },
    });
    return connect(transport);
  };
}

function renamed(message: JSONRPCMessage): JSONRPCMessage {
  const params = (message as { params?: { arguments?: unknown } }).params;
  const args = params?.arguments;
  if (args === null || typeof args !== 'object' || !Object.hasOwn(args, '__proto__')) return message;
  const kept = Object.fromEntries(Object.entries(args).map(([k, v]) => [k === '__proto__' ? PROTO_ARGUMENT : k, v]));
  return { ...message, params: { ...params, arguments: kept } } as JSONRPCMessage;
}
