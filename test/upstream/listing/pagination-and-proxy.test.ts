import { createServer, request as httpRequest, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { startSimulator } from '../../../src/simulator/index.js';
import { AnalyticsClient } from '../../../src/upstream/client.js';
import { UpstreamProtocolError } from '../../../src/upstream/errors.js';
import { HttpTransport } from '../../../src/upstream/transport/http.js';
import { NOW } from '../../helpers/sim.js';
import { clientFor, requestsTo, UNLIMITED } from '../../helpers/client.js';
import { dau } from '../../../src/upstream/endpoints/dau.js';
import { dauCount } from '../../../src/upstream/endpoints/dau-count.js';
import { userActivity } from '../../../src/upstream/endpoints/user-activity.js';

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(
    servers.splice(0).map(
      (s) =>
        new Promise((r) => {
          s.closeAllConnections();
          s.close(r);
        }),
    ),
  );
});

/** A misbehaving upstream whose `dau` pages are scripted: each entry is [users on the page, next_cursor, has_more]. */
async function scripted(pages: Array<[number, string | undefined, boolean]>): Promise<{ url: string; seen: string[] }> {
  const seen: string[] = [];
  const server = createServer((req, res) => {
    const cursor = new URL(req.url!, 'http://x').searchParams.get('cursor') ?? '';
    seen.push(cursor);
    const [count, next, hasMore] = pages[Math.min(seen.length - 1, pages.length - 1)]!;
    const users = Array.from({ length: count }, (_, i) => ({ user_email: `u${seen.length}-${i}@x.example` }));
    res.setHeader('content-type', 'application/json');
    res.end(
      JSON.stringify({
        users,
        pagination: { next_cursor: next, has_more: hasMore },
        metadata: { effective_date: '2026-11-20', generated_at: NOW, returned_user_count: count },
      }),
    );
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

const clientOf = (url: string) =>
  new AnalyticsClient({
    baseUrl: url,
    token: 't',
    now: () => Date.parse(NOW),
    limits: UNLIMITED,
    retry: { baseDelayMs: 1, maxDelayMs: 2 },
  });

describe('pagination', () => {
  it('refuses a repeated cursor instead of looping', async () => {
    const { url, seen } = await scripted([
      [2, 'A', true],
      [2, 'B', true],
      [2, 'A', true],
    ]);
    const client = clientOf(url);
    const error = await client.list(dau, {}).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UpstreamProtocolError);
    expect((error as Error).message).toMatch(/same cursor|already returned/);
    expect(seen).toEqual(['', 'A', 'B']);
    await client.close();
  });

  it('refuses has_more=true without a cursor', async () => {
    const { url } = await scripted([[1, '', true]]);
    const client = clientOf(url);
    await expect(client.list(dau, {})).rejects.toThrow(/has_more=true but gave no next_cursor/);
    await client.close();
  });

  it('accepts a last page whose next_cursor is absent', async () => {
    const { url } = await scripted([
      [3, 'A', true],
      [1, undefined, false],
    ]);
    const client = clientOf(url);
    const answer = await client.list(dau, {});
    expect(answer.data).toHaveLength(4);
    expect(answer.truncated).toBe(false);
    await client.close();
  });

  it('stops at the page and record caps and says the answer is truncated', async () => {
    const sim = await startSimulator({ users: 2000, now: NOW, rateLimit: false, token: 'rw' });
    const client = clientFor(sim);
    const byPages = await client.list(userActivity, { range: 'last_30_days' }, { caps: { maxPages: 3 } });
    expect([byPages.pages, byPages.data.length, byPages.truncated]).toEqual([3, 300, true]);
    const byRecords = await client.list(dau, {}, { caps: { maxRecords: 400 } });
    expect([byRecords.pages, byRecords.data.length, byRecords.truncated]).toEqual([2, 500, true]);
    const progress: Array<{ pages: number; records: number }> = [];
    const whole = await client.list(dau, {}, { onProgress: (p) => progress.push(p) });
    expect(whole.truncated).toBe(false);
    expect(progress.at(-1)).toEqual({ pages: whole.pages, records: whole.data.length });
    expect(requestsTo(sim, 'dau').every((r) => r.query.page_size === '250')).toBe(true);
    await client.close();
    await sim.close();
  });
});

describe('proxies', () => {
  it('uses a keep-alive agent without proxy variables, and the env proxy agent with them', () => {
    expect(
      new HttpTransport({
        connectTimeoutMs: 1,
        headersTimeoutMs: 1,
        bodyTimeoutMs: 1,
        attemptTimeoutMs: 1,
        userAgent: 'x',
        env: {},
      }).proxied,
    ).toBe(false);
    for (const name of ['HTTPS_PROXY', 'HTTP_PROXY', 'NO_PROXY', 'https_proxy']) {
      expect(
        new HttpTransport({
          connectTimeoutMs: 1,
          headersTimeoutMs: 1,
          bodyTimeoutMs: 1,
          attemptTimeoutMs: 1,
          userAgent: 'x',
          env: { [name]: 'http://127.0.0.1:9' },
        }).proxied,
      ).toBe(true);
    }
  });

  it('sends requests through HTTP_PROXY', async () => {
    const sim = await startSimulator({ users: 20, now: NOW, rateLimit: false, token: 'rw' });
    const tunnelled: string[] = [];
    const proxy = createServer((req, res) => {
      // Plain forward proxy: the request line carries the absolute URL.
      tunnelled.push(`${req.method} ${req.url}`);
      const target = new URL(req.url!);
      const upstream = httpRequest(
        {
          host: target.hostname,
          port: target.port,
          path: target.pathname + target.search,
          method: req.method,
          headers: req.headers,
        },
        (r) => {
          res.writeHead(r.statusCode!, r.headers);
          r.pipe(res);
        },
      );
      req.pipe(upstream);
    });
    proxy.on('connect', (req, socket) => {
      tunnelled.push(`CONNECT ${req.url}`);
      const [host, port] = req.url!.split(':');
      const upstream = connect(Number(port), host!, () => {
        socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        upstream.pipe(socket);
        socket.pipe(upstream);
      });
    });
    servers.push(proxy);
    await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
    const proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
    const client = clientFor(sim, { env: { HTTP_PROXY: proxyUrl } });
    const answer = await client.list(dauCount, {});
    expect(answer.data).toHaveLength(7);
    expect(tunnelled.length).toBeGreaterThan(0);
    expect(tunnelled[0]).toContain(new URL(sim.url).port);
    await client.close();
    await sim.close();
  });
});
