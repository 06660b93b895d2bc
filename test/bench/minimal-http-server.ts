// The yardstick for HTTP throughput: a minimal SDK v2 Streamable HTTP server with one tool that answers
// from memory, bundled like dist/cli.js. Prints its URL on stderr, like org-analytics-mcp --http.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { McpServer, createMcpHandler } from '@modelcontextprotocol/server';
import { z } from 'zod';

const cached = { days: Array.from({ length: 7 }, (_, i) => ({ date: `2026-11-${10 + i}`, active_users: 100 + i })) };
const handler = createMcpHandler(() => {
  const server = new McpServer({ name: 'minimal-http', version: '1.0.0' });
  server.registerTool(
    'get_counts',
    { description: 'Answers from memory.', inputSchema: z.object({ range: z.string() }) },
    () => ({ content: [{ type: 'text', text: JSON.stringify(cached) }], structuredContent: cached }),
  );
  return server;
});
const node = toNodeHandler(handler);
const http = createServer((req, res) => void node(req, res));
http.listen(0, '127.0.0.1', () => {
  process.stderr.write(`Streamable HTTP at http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp\n`);
});
