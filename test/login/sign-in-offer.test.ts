import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { InMemoryTransport, createMcpHandler } from '@modelcontextprotocol/server';
import { afterEach, describe, expect, it } from 'vitest';
import type { Runtime } from '../../src/runtime/runtime.js';
import { createServer } from '../../src/mcp/server.js';
import { startSimulator, type Simulator } from '../../src/simulator/index.js';
import { configHome, runtimeOnLogin } from '../helpers/login.js';

let sim: Simulator;
let runtime: Runtime;
let home: ReturnType<typeof configHome>;
const closers: Array<() => Promise<void>> = [];

afterEach(async () => {
  for (const close of closers.splice(0)) await close();
  await runtime?.close();
  await sim?.close();
  home?.remove();
});

/** A server on a login that nobody has made yet, and a client that takes URL elicitation (or not). */
async function setUp(era: 'legacy' | 'modern', answer: 'open' | 'decline' | 'none') {
  sim = await startSimulator({ users: 60, rateLimit: false, warm: false, oauth: { autoApprove: true } });
  home = configHome();
  runtime = await runtimeOnLogin(sim, home.env);
  const asked: Array<Record<string, unknown>> = [];
  const client = new Client(
    { name: 'sign-in', version: '1.0.0' },
    {
      capabilities: answer === 'none' ? {} : { elicitation: { url: {} } },
      versionNegotiation: { mode: era === 'modern' ? 'auto' : 'legacy' },
    },
  );
  if (answer !== 'none')
    client.setRequestHandler('elicitation/create', async (request) => {
      asked.push(request.params as Record<string, unknown>);
      if (answer === 'decline') return { action: 'decline' };
      // The user opens the link; the simulator approves at once and redirects to the server's listener.
      await fetch(String((request.params as { url: string }).url));
      return { action: 'accept' };
    });
  if (era === 'modern') {
    const handler = createMcpHandler(() => createServer(runtime));
    await client.connect(
      new StreamableHTTPClientTransport(new URL('http://in-process.test/mcp'), {
        fetch: (url, init) => handler.fetch(new Request(url, init)),
      }),
    );
    closers.push(() => handler.close());
  } else {
    const server = createServer(runtime);
    const [serverSide, clientSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    await client.connect(clientSide);
    closers.push(() => server.close());
  }
  closers.push(() => client.close());
  const call = async () => {
    const r = await client.callTool({ name: 'get_active_user_counts', arguments: { range: 'last_7_days' } });
    return { isError: r.isError === true, text: JSON.stringify(r.content) };
  };
  return { client, asked, call };
}

describe('signing in from the conversation', () => {
  for (const era of ['modern', 'legacy'] as const) {
    it(`offers the sign-in link by URL elicitation, then answers the call (${era} client)`, async () => {
      const { asked, call } = await setUp(era, 'open');
      const r = await call();
      expect(asked).toHaveLength(1);
      expect(asked[0]).toMatchObject({ mode: 'url', url: expect.stringContaining(`${sim.authUrl}/authorize?`) });
      expect(r.text).not.toMatch(/sign/i);
      expect(r.isError).toBe(false);
      expect(runtime.login?.login?.scopes).toEqual(['read']);
    });
  }

  it('a declined link answers the error that says how to sign in', async () => {
    const { call } = await setUp('modern', 'decline');
    const r = await call();
    expect(r.isError).toBe(true);
    expect(r.text).toMatch(/org-analytics-mcp login/);
  });

  it('a client without URL elicitation gets the error that says how to sign in, and no write tool', async () => {
    const { client, call } = await setUp('legacy', 'none');
    expect((await client.listTools()).tools.map((t) => t.name)).not.toContain('set_budget_overrides');
    const r = await call();
    expect(r.isError).toBe(true);
    expect(r.text).toMatch(/Nobody has signed in .*`org-analytics-mcp login`/);
  });
});
