import { createServer as createHttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { hostHeaderValidation, originValidation, toNodeHandler } from '@modelcontextprotocol/node';
import { createMcpHandler, type McpServer } from '@modelcontextprotocol/server';
import type { Config } from '../config.js';
import { ConfigError } from '../config.js';
import type { Logger } from '../logger.js';
import { isLoopbackHost, loopbackHostnames, nonLoopbackRefusal } from './loopback.js';

const MCP_PATH = '/mcp';

/**
 * Streamable HTTP at exactly /mcp, for both protocol eras (2025 clients are served statelessly). A fresh
 * server per request shares the one upstream client, its cache and its rate limits. Loopback only: Host and
 * Origin must name this machine, which stops DNS-rebinding pages from reaching the server through a browser.
 */
export async function serveHttp(
  factory: () => McpServer,
  config: Config,
  log: Logger,
): Promise<{ url: string; close: () => Promise<void> }> {
  if (!isLoopbackHost(config.host)) throw new ConfigError(nonLoopbackRefusal(config.host));
  const handler = createMcpHandler(() => factory(), {
    onerror: (error) => log.warn('http handler error', { error: error.message }),
  });
  const node = toNodeHandler(handler);
  const names = loopbackHostnames(config.host);
  const validHost = hostHeaderValidation(names);
  const validOrigin = originValidation(names);
  const http = createHttpServer((req, res) => {
    if (pathOf(req.url) !== MCP_PATH) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end(`MCP is served at ${MCP_PATH}\n`);
      return;
    }
    if (!validHost(req, res) || !validOrigin(req, res)) return;
    void node(req, res);
  });
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(config.port, config.host, () => {
      http.off('error', reject);
      resolve();
    });
  });
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}${MCP_PATH}`,
    close: async () => {
      await handler.close();
      http.closeAllConnections();
      await new Promise((r) => http.close(r));
    },
  };
}

function pathOf(url: string | undefined): string | undefined {
  if (url === undefined) return undefined;
  try {
    return new URL(url, 'http://localhost').pathname;
  } catch {
    return undefined;
  }
}
