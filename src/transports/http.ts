import { createServer as createHttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { NodeStreamableHTTPServerTransport } from '@modelcontextprotocol/node';
import type { McpServer } from '@modelcontextprotocol/server';
import type { Config } from '../config.js';
import type { Logger } from '../logger.js';

/** Stateless Streamable HTTP at /mcp: a fresh server and transport per request, sharing one upstream client. */
export async function serveHttp(factory: () => McpServer, config: Config, log: Logger): Promise<string> {
  const http = createHttpServer(async (req, res) => {
    if (!req.url?.startsWith('/mcp')) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('Not found: MCP is served at /mcp');
      return;
    }
    const server = factory();
    const transport = new NodeStreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    try {
      await server.connect(transport);
      await transport.handleRequest(req, res);
    } catch (error) {
      log.error('http request failed', { error: error instanceof Error ? error.message : String(error) });
      if (!res.headersSent) res.writeHead(500).end();
    }
  });
  await new Promise<void>((resolve) => http.listen(config.port, config.host, resolve));
  const { port } = http.address() as AddressInfo;
  return `http://${config.host}:${port}/mcp`;
}
