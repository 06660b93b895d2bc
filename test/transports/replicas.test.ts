import { randomBytes } from 'node:crypto';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.js';
import { startHttp } from '../../src/main.js';
import { createRuntime, type Runtime } from '../../src/runtime/runtime.js';
import { startSimulator, type Simulator } from '../../src/simulator/index.js';
import { requestsTo } from '../helpers/client.js';

// Its own database number, and a token of its own: nothing here meets another test's keys.
const REDIS_URL = `${(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379').replace(/\/\d+$/, '')}/12`;

let sim: Simulator;
const replicas: Array<{ runtime: Runtime; url: string; close: () => Promise<void> }> = [];

beforeAll(async () => {
  sim = await startSimulator({
    users: 120,
    rateLimit: false,
    token: `replicas-${randomBytes(6).toString('hex')}`,
  });
  for (let i = 0; i < 2; i++) {
    const config = loadConfig(['--http', '--port', '0', '--redis-url', REDIS_URL, '--cache-dir', 'none'], {
      ANALYTICS_API_TOKEN: sim.token,
      ANALYTICS_BASE_URL: sim.url,
      ANALYTICS_LOG_LEVEL: 'error',
    });
    const runtime = await createRuntime(config);
    const served = await startHttp(runtime);
    replicas.push({ runtime, ...served });
  }
});
afterAll(async () => {
  for (const r of replicas) {
    await r.close();
    await r.runtime.close();
  }
  await sim?.close();
});

/** One client whose requests go to the two replicas in turn, as a load balancer without affinity would send them. */
async function balancedClient(mode: 'legacy' | 'auto', served: number[]): Promise<Client> {
  let next = 0;
  const client = new Client(
    { name: 'replicas', version: '1.0.0' },
    { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode } },
  );
  client.setRequestHandler('elicitation/create', async () => ({ action: 'accept', content: { confirm: true } }));
  await client.connect(
    new StreamableHTTPClientTransport(new URL(replicas[0]!.url), {
      fetch: (url, init) => {
        const index = next++ % replicas.length;
        served[index] = (served[index] ?? 0) + 1;
        const target = new URL(String(url));
        const replica = new URL(replicas[index]!.url);
        target.host = replica.host;
        return fetch(target, init);
      },
    }),
  );
  return client;
}

const member = () => sim.state.org.identities.find((i) => i.kind === 'user' && i.leaveDay === Infinity)!.id;

describe('two replicas sharing Redis serve one client interchangeably', () => {
  for (const mode of ['legacy', 'auto'] as const) {
    it(`a ${mode === 'auto' ? '2026-07-28' : '2025-era'} client's reads, whichever replica answers; a page fetched by one is a hit for the other`, async () => {
      const served: number[] = [];
      const client = await balancedClient(mode, served);
      try {
        // A question of its own per era, so that neither finds the other's answer cached.
        const args = { range: mode === 'auto' ? 'last_7_days' : 'last_30_days', sort_by: 'total_messages', limit: 3 };
        const before = requestsTo(sim, 'user-activity').length;
        const first = await client.callTool({ name: 'get_user_activity', arguments: args });
        const walked = requestsTo(sim, 'user-activity').length - before;
        const second = await client.callTool({ name: 'get_user_activity', arguments: args });
        expect(first.isError, JSON.stringify(first.content)).toBeFalsy();
        expect(second.structuredContent).toMatchObject({
          ...(first.structuredContent as object),
          freshness: expect.anything(),
        });
        expect((second.structuredContent as { users: unknown }).users).toEqual(
          (first.structuredContent as { users: unknown }).users,
        );
        // The second call went to the other replica, and cost nothing upstream.
        expect(walked).toBeGreaterThan(0);
        expect(requestsTo(sim, 'user-activity').length - before).toBe(walked);
        expect(served[0]).toBeGreaterThan(0);
        expect(served[1]).toBeGreaterThan(0);
      } finally {
        await client.close();
      }
    });
  }

  it('a write confirmed through one replica is applied by the other, once', async () => {
    const served: number[] = [];
    const client = await balancedClient('auto', served);
    try {
      const r = await client.callTool({
        name: 'set_budget_overrides',
        arguments: { overrides: [{ user_email: member(), limit: '3131' }] },
      });
      expect(r.isError).toBeFalsy();
      expect(r.structuredContent).toMatchObject({ confirmation: 'accepted' });
      expect(requestsTo(sim, 'set-user-budget-overrides')).toHaveLength(1);
      expect(served.filter(Boolean)).toHaveLength(2);
    } finally {
      await client.close();
    }
  });
});
