import type { McpServer } from '@modelcontextprotocol/server';
import { serveStdio as serve, StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import type { Logger } from '../logger.js';
import { envelopeError, type EnvelopeError } from './jsonrpc-envelope.js';
import { LineLimit, MAX_MESSAGE_BYTES, type OversizedLine } from './line-limit.js';

/** How long closing may take before the process exits anyway (an upstream call still in flight, say). */
const CLOSE_GRACE_MS = 3_000;

/** Fires `onClosed` however the wire closes: stdin ending, stdout failing, or the server closing it. */
class ClosingTransport extends StdioServerTransport {
  constructor(
    input: LineLimit,
    private readonly onClosed: () => void,
  ) {
    super(input, process.stdout, { maxBufferSize: MAX_MESSAGE_BYTES + 1024 });
  }

  override async close(): Promise<void> {
    await super.close();
    this.onClosed();
  }
}

/**
 * Serves MCP on stdin/stdout, speaking both the 2026-07-28 protocol and 2025-era clients, until stdin
 * ends or a signal arrives, then exits. Nothing but protocol messages goes to stdout. A message over 10 MiB,
 * and a line that is no JSON-RPC message, is answered with an error and skipped; the connection goes on.
 */
export function serveStdio(factory: () => McpServer, log: Logger, onClose: () => Promise<void>): void {
  const input = new LineLimit(
    MAX_MESSAGE_BYTES,
    (line) => void tooLarge(line),
    (line) => {
      const malformed = envelopeError(line.toString('utf8'));
      if (malformed) {
        log.warn('stdio line is not a JSON-RPC message; answered with an error', { code: malformed.code });
        void refuse(malformed);
      }
      return !malformed;
    },
  );
  const wire = new ClosingTransport(input, () => void close());
  const handle = serve(() => factory(), {
    transport: wire,
    onerror: (error) => log.warn('stdio transport error', { error: error.message }),
  });
  process.stdin.pipe(input);

  // Without a recognizable id the answer carries none: MCP's schema has no null id.
  const refuse = ({ code, message, id }: EnvelopeError) =>
    wire.send({ jsonrpc: '2.0', ...(id !== undefined && { id }), error: { code, message } }).catch(() => {});
  const tooLarge = async ({ bytes, id }: OversizedLine) => {
    log.warn('stdio message too large; skipped', { bytes, id });
    const message = `Message too large: ${bytes} bytes, over the ${MAX_MESSAGE_BYTES}-byte (10 MiB) limit for one message. It was not read; send less in one request (fewer entries per call, for example).`;
    await refuse({ code: -32600, message, id });
  };

  let closing = false;
  const close = async () => {
    if (closing) return;
    closing = true;
    // The embedded simulator, keep-alive sockets and limiter timers all hold the event loop; exit explicitly.
    setTimeout(() => process.exit(0), CLOSE_GRACE_MS).unref();
    await handle.close().catch(() => {});
    await onClose().catch(() => {});
    process.exit(0);
  };
  // A failing stdin closes without ending, and pipe() then leaves the input open.
  process.stdin.once('close', () => input.writableEnded || input.end());
  process.once('SIGINT', () => void close());
  process.once('SIGTERM', () => void close());
}
