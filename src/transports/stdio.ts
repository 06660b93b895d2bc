import type { McpServer } from '@modelcontextprotocol/server';
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';

/** Serves MCP on stdin/stdout until stdin ends; nothing but protocol messages goes to stdout. */
export async function serveStdio(server: McpServer, onClose: () => Promise<void>): Promise<void> {
  const transport = new StdioServerTransport();
  let closing = false;
  const close = async () => {
    if (closing) return;
    closing = true;
    await server.close().catch(() => {});
    await onClose();
  };
  transport.onclose = () => void close();
  process.stdin.once('end', () => void close());
  process.once('SIGINT', () => void close().then(() => process.exit(0)));
  process.once('SIGTERM', () => void close().then(() => process.exit(0)));
  await server.connect(transport);
}
