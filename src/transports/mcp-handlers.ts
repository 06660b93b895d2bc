import { toNodeHandler } from '@modelcontextprotocol/node';
import { createMcpHandler, type McpServer } from '@modelcontextprotocol/server';
import { callerOf } from '../auth/authenticator.js';
import type { Caller } from '../auth/caller.js';
import type { Logger } from '../logger.js';
import type { ToolInventory } from '../mcp/tool-inventory.js';

/**
 * Builds the MCP server for one request: for an authenticated caller, the one that caller may see.
 * `onlyTool`: the request is exactly one call of this tool (see createServer).
 */
export type ServerFactory = (caller: Caller | undefined, onlyTool?: string) => McpServer;

export type NodeHandler = ReturnType<typeof toNodeHandler>;

/** Calls `notify` with a resource's URI whenever it changes (anomalies://latest after a sync); returns how to stop. */
export type ResourceUpdates = (notify: (uri: string) => void) => () => void;

/**
 * The MCP handlers of the HTTP server: one for any request, and one per tool for a request that is exactly one
 * call of it, whose factory is handed that tool: building every tool is most of what a request costs.
 */
export function mcpHandlers(
  factory: ServerFactory,
  inventory: (caller: Caller) => Pick<ToolInventory, 'withheld'>,
  log: Logger,
  updates?: ResourceUpdates,
) {
  const handlerOf = (onlyTool?: string) =>
    createMcpHandler((ctx) => factory(callerOf(ctx.authInfo), onlyTool), {
      onerror: (error) => log.warn('http handler error', { error: error.message }),
    });
  const any = handlerOf();
  // 2026-07-28 clients listen on subscriptions/listen streams, which this handler serves.
  const stopUpdates = updates?.((uri) => any.notify.resourceUpdated(uri));
  const node = toNodeHandler(any);
  const byTool = new Map<string, { handler: ReturnType<typeof createMcpHandler>; node: NodeHandler }>();
  return {
    /** For any request. */
    node,
    /** For this caller's request with this body. */
    nodeFor(caller: Caller, body: unknown): NodeHandler {
      const call = body as { method?: unknown; params?: { name?: unknown } } | null;
      const tool = call?.method === 'tools/call' ? call.params?.name : undefined;
      if (typeof tool !== 'string' || inventory(caller).withheld(tool) === 'unknown') return node;
      let served = byTool.get(tool);
      if (!served) {
        const handler = handlerOf(tool);
        byTool.set(tool, (served = { handler, node: toNodeHandler(handler) }));
      }
      return served.node;
    },
    close: () => {
      stopUpdates?.();
      return Promise.all([any, ...[...byTool.values()].map((served) => served.handler)].map((h) => h.close()));
    },
  };
}
