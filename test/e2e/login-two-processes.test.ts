import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LoginStore } from '../../src/login/login-store.js';
import { startSimulator, type Simulator } from '../../src/simulator/index.js';
import { accountOf, browserlessLogin, configHome, grants } from '../helpers/login.js';

const CLI = fileURLToPath(new URL('../../dist/cli.js', import.meta.url));

let sim: Simulator;
let home: ReturnType<typeof configHome>;
beforeAll(async () => {
  sim = await startSimulator({ users: 60, rateLimit: false, warm: false, oauth: { autoApprove: true } });
  home = configHome();
});
afterAll(async () => {
  await sim?.close();
  home?.remove();
});

async function server(): Promise<Client> {
  const client = new Client({ name: 'two-processes', version: '1.0.0' });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [CLI],
      env: {
        PATH: process.env.PATH ?? '',
        XDG_CONFIG_HOME: home.dir,
        ANALYTICS_BASE_URL: sim.url,
        ANALYTICS_AUTH_URL: sim.authUrl,
        ANALYTICS_CLIENT_ID: sim.oauthClientId,
        ANALYTICS_CREDENTIAL_STORE: 'file',
        ANALYTICS_CACHE_DIR: 'none',
      },
      stderr: 'pipe',
    }),
  );
  return client;
}

describe('two server processes on one login', () => {
  it('refresh an expired access token once between them, and both answer', async () => {
    sim.oauth.setAccessTokenTtl(2);
    const store = new LoginStore(accountOf(sim), 'file', home.env);
    const first = await browserlessLogin(sim, ['read'], store);
    await new Promise((r) => setTimeout(r, 2_100));
    // The refreshed token lives an hour: on a busy machine a 2 s one could expire again before both answer.
    sim.oauth.setAccessTokenTtl(3600);
    const [a, b] = await Promise.all([server(), server()]);
    try {
      const ask = (c: Client) => c.callTool({ name: 'get_budget_overrides', arguments: {} });
      const [ra, rb] = await Promise.all([ask(a), ask(b)]);
      expect(ra.isError).toBeFalsy();
      expect(rb.isError).toBeFalsy();
      // Rotation raced would have revoked the family: one refresh, and the stored login is its result.
      expect(grants(sim, 'refresh_token')).toHaveLength(1);
      const stored = (await store.read())!.login;
      expect(stored.refresh_token).not.toBe(first.refresh_token);
      expect(sim.requests().filter((r) => r.auth === 'expired')).toEqual([]);
    } finally {
      await a.close();
      await b.close();
    }
  });
});
