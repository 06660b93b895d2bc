// The yardstick for start-up: a minimal SDK v2 stdio server with one trivial tool, bundled like dist/cli.js.
import { McpServer } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { z } from 'zod';

serveStdio(() => {
  const server = new McpServer({ name: 'minimal', version: '1.0.0' });
  server.registerTool(
    'echo',
    { description: 'Echoes its text.', inputSchema: z.object({ text: z.string() }) },
    ({ text }) => ({
      content: [{ type: 'text', text }],
    }),
  );
  return server;
});
