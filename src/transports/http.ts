import { createServer as createHttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { localhostHostValidation, localhostOriginValidation, toNodeHandler } from '@modelcontextprotocol/node';
import { createMcpHandler, type McpServer } from '@modelcontextprotocol/server';
import type { Config } from '../config.js';
import type { Logger } from '../logger.js';

/**
 * Streamable HTTP at /mcp, for both protocol eras (2025 clients are served statelessly). A fresh server
 * per request shares the one upstream client, its cache and its rate limits. Loopback only by default:
 * Host and Origin are checked against localhost.
 */
export async function serveHttp(factory: () => McpServer, config: Config, log: Logger): Promise<{ url: string; close: () => Promise<void> }> {
  const handler = createMcpHandler(() => factory(), { onerror: (error) => log.warn('http handler error', { error: error.message }) });
  const node = toNodeHandler(handler);
  const local = ['127.0.0.1', 'localhost', '::1'].includes(config.host);
  const validHost = localhostHostValidation();
  const validOrigin = localhostOriginValidation();
  const http = createHttpServer((req, res) => {
    if (!req.url?.startsWith('/mcp')) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('MCP is served at /mcp\n');
      return;
    }
    if (local && (!validHost(req, res) || !validOrigin(req, res))) return;
    void node(req, res);
  });
  await new Promise<void>((resolve) => http.listen(config.port, config.host, resolve));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}/mcp`,
    close: async () => {
      await handler.close();
      http.closeAllConnections();
      await new Promise((r) => http.close(r));
    },
  };
}
