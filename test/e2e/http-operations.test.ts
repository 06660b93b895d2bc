import type { ChildProcess } from 'node:child_process';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../src/simulator/index.js';
import { startHttpBinary } from '../helpers/http-binary.js';

let sim: Simulator;
let child: ChildProcess;
let url: URL;
let stderr: () => string;
let exited: Promise<number | null>;

beforeAll(async () => {
  sim = await startSimulator({ users: 50, rateLimit: false, token: 'ops-upstream-token' });
  const served = await startHttpBinary(['--http', '--port', '0', '--cache-dir', 'none'], {
    PATH: process.env.PATH ?? '',
    ANALYTICS_API_TOKEN: sim.token,
    ANALYTICS_BASE_URL: sim.url,
  });
  ({ child, exited } = served);
  url = new URL(served.url);
  stderr = served.stderr;
});
afterAll(async () => {
  child.kill('SIGKILL');
  await sim.close();
});

async function connect(): Promise<Client> {
  const client = new Client({ name: 'ops', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(url));
  return client;
}

describe('operating the HTTP server', () => {
  it('/healthz says the process is alive; /readyz that the upstream is reachable and Redis is not configured', async () => {
    const live = await fetch(new URL('/healthz', url));
    expect(live.status).toBe(200);
    expect(await live.json()).toEqual({ status: 'ok' });
    const ready = await fetch(new URL('/readyz', url));
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: 'ready', upstream: 'ok', redis: 'not configured' });
  });

  it('logs one access line per call: tool, outcome and duration, and no secret', async () => {
    const client = await connect();
    try {
      await client.callTool({ name: 'get_active_user_counts', arguments: { range: 'last_7_days' } });
      await client.callTool({ name: 'get_active_user_counts', arguments: { start_date: '1999-01-01' } });
    } finally {
      await client.close();
    }
    const calls = stderr()
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .filter((l) => l.message === 'call');
    expect(calls.map((c) => [c.tool, c.outcome])).toEqual([
      ['get_active_user_counts', 'ok'],
      ['get_active_user_counts', 'error'],
    ]);
    for (const c of calls) expect(typeof c.ms).toBe('number');
    expect(stderr()).not.toContain(sim.token);
  });

  it('on SIGTERM finishes the call in flight, refuses new ones, and exits 0', async () => {
    // The next dau-count answer comes one byte every 4 ms: a call that takes a second or two.
    sim.injectFault({ path: '/analytics/v0/dau-count', kind: 'trickle', intervalMs: 4 });
    const client = await connect();
    const before = sim.requests().length;
    const inFlight = client.callTool({ name: 'get_active_user_counts', arguments: { range: 'last_30_days' } });
    while (sim.requests().length === before) await new Promise((r) => setTimeout(r, 20));
    child.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 100));
    const refused = await fetch(new URL('/healthz', url)).then(
      (r) => r.status,
      () => 'connection refused',
    );
    expect([503, 'connection refused']).toContain(refused);
    const answer = await inFlight;
    expect(answer.isError).toBeFalsy();
    expect(await exited).toBe(0);
  }, 30_000);
});
