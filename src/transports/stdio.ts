import type { McpServer } from '@modelcontextprotocol/server';
import { serveStdio as serve } from '@modelcontextprotocol/server/stdio';
import type { Logger } from '../logger.js';

/**
 * Serves MCP on stdin/stdout, speaking both the 2026-07-28 protocol and 2025-era clients, until stdin
 * ends or a signal arrives. Nothing but protocol messages goes to stdout.
 */
export function serveStdio(factory: () => McpServer, log: Logger, onClose: () => Promise<void>): void {
  const handle = serve(() => factory(), { onerror: (error) => log.warn('stdio transport error', { error: error.message }) });
  let closing = false;
  const close = async () => {
    if (closing) return;
    closing = true;
    await handle.close().catch(() => {});
    await onClose();
  };
  process.stdin.once('end', () => void close().then(() => process.exit(0)));
  process.once('SIGINT', () => void close().then(() => process.exit(0)));
  process.once('SIGTERM', () => void close().then(() => process.exit(0)));
}
