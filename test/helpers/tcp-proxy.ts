import { connect, createServer, type Server, type Socket } from 'node:net';

export async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address() as { port: number };
  await new Promise((r) => s.close(r));
  return port;
}

export interface Proxy {
  port: number;
  /** PostgreSQL goes away: the port closes and every connection through it drops. */
  close(): void;
}

/**
 * A TCP hop in front of the real PostgreSQL, so that a test can take it away without stopping the server (or
 * bring it up late, on a port chosen before).
 */
export async function tcpProxy(target: URL, port = 0): Promise<Proxy> {
  const sockets = new Set<Socket>();
  const track = (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
    s.on('error', () => {});
  };
  const server: Server = createServer((inbound) => {
    const outbound = connect(Number(target.port || 5432), target.hostname);
    track(inbound);
    track(outbound);
    inbound.pipe(outbound).pipe(inbound);
  });
  await new Promise<void>((r) => server.listen(port, '127.0.0.1', r));
  return {
    port: (server.address() as { port: number }).port,
    close() {
      server.close();
      for (const s of sockets) s.destroy();
    },
  };
}
