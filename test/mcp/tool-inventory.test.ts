import { Client } from '@modelcontextprotocol/client';
import { InMemoryTransport } from '@modelcontextprotocol/server';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Caller } from '../../src/auth/caller.js';
import { LoginStore } from '../../src/login/login-store.js';
import { createServer } from '../../src/mcp/server.js';
import type { ServerDeps } from '../../src/mcp/server-deps.js';
import type { Runtime } from '../../src/runtime/runtime.js';
import { startSimulator, type Simulator } from '../../src/simulator/index.js';
import { TOOLS } from '../../src/tools/index.js';
import { VIEWS } from '../../src/ui/views.js';
import { accountOf, browserlessLogin, configHome, runtimeOnLogin } from '../helpers/login.js';
import { harness, type Harness } from '../helpers/mcp.js';

const WRITE = 'set_budget_overrides';
const READS = TOOLS.filter((t) => t.name !== WRITE).map((t) => t.name);

/** A 2025-era client on its own in-memory connection to createServer(deps, onlyTool). */
async function connect(deps: ServerDeps, onlyTool?: string) {
  const server = createServer(deps, onlyTool);
  const client = new Client({ name: 'inventory', version: '1.0.0' }, { versionNegotiation: { mode: 'legacy' } });
  const [serverSide, clientSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  await client.connect(clientSide);
  return { client, close: () => client.close().then(() => server.close()) };
}

/** What a client is offered: the tools it lists, whether the write tool answers, the budget prompt and view. */
async function offered(client: Client) {
  const tools = (await client.listTools()).tools.map((t) => t.name);
  const call = await client
    .callTool({
      name: WRITE,
      arguments: { overrides: [{ user_email: 'nobody@example.com', limit: '5' }], dry_run: true },
    })
    .then(
      () => 'answered',
      (error: Error) => `refused: ${error.message}`,
    );
  const prompt = await client.getPrompt({ name: 'budget_review' });
  const view = await client.readResource({ uri: VIEWS.budget.uri });
  return {
    tools,
    call: call === 'answered' ? call : call.includes(WRITE) ? 'refused' : call,
    prompt: /dry_run true first/.test((prompt.messages[0]!.content as { text: string }).text)
      ? 'proposes changes'
      : 'recommends only',
    view: /data-writable="(true|false)"/.exec(String((view.contents[0] as { text: string }).text))?.[1],
  };
}

const writer = { tools: TOOLS.map((t) => t.name), call: 'answered', prompt: 'proposes changes', view: 'true' };
const reader = { tools: READS, call: 'refused', prompt: 'recommends only', view: 'false' };
const caller = (role: Caller['role']): Caller => ({ id: 'ana@example.com', via: 'api-key', role, tenant: null });

describe('the tool inventory, by what decides it', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await harness({ sim: { users: 20 } });
  });
  afterAll(() => h.close());

  it.each([
    ['a server on a token', {}, false, writer],
    ['--read-only', {}, true, reader],
    ['a caller with the read role', { caller: caller('read') }, false, reader],
    ['a caller with the write role', { caller: caller('write') }, false, writer],
    ['a caller with the write role on a --read-only server', { caller: caller('write') }, true, reader],
  ] as const)(
    '%s: tools, the write call, the budget prompt and the budget view agree',
    async (_, who, readOnly, seen) => {
      const served = await connect({ ...h.deps, ...who, config: { ...h.deps.config, readOnly } });
      try {
        expect(await offered(served.client)).toEqual(seen);
      } finally {
        await served.close();
      }
    },
  );

  it('a one-call server has that tool and nothing else', async () => {
    const served = await connect(h.deps, 'get_budget_overrides');
    try {
      expect((await served.client.listTools()).tools.map((t) => t.name)).toEqual(['get_budget_overrides']);
      expect((await served.client.callTool({ name: 'get_budget_overrides', arguments: {} })).isError).toBeFalsy();
      await expect(served.client.callTool({ name: 'get_user_activity', arguments: {} })).rejects.toThrow(
        /get_user_activity/,
      );
      // No prompts, resources or views: the request it answers is that one call.
      const capabilities = served.client.getServerCapabilities();
      expect(capabilities?.tools).toBeDefined();
      expect(capabilities?.prompts).toBeUndefined();
      expect(capabilities?.resources).toBeUndefined();
    } finally {
      await served.close();
    }
  });

  it.each([
    ['names no tool', 'no_such_tool', {}, false, writer],
    ['names the write tool on a --read-only server', WRITE, {}, true, reader],
    ['names the write tool for a read caller', WRITE, { caller: caller('read') }, false, reader],
  ] as const)('a one-call server whose tool %s has what its caller may have', async (_, tool, who, readOnly, seen) => {
    const served = await connect({ ...h.deps, ...who, config: { ...h.deps.config, readOnly } }, tool);
    try {
      expect(await offered(served.client)).toEqual(seen);
    } finally {
      await served.close();
    }
  });
});

describe('the tool inventory on a personal login', () => {
  let sim: Simulator;
  let runtime: Runtime;
  let home: ReturnType<typeof configHome>;
  afterEach(async () => {
    await runtime?.close();
    await sim?.close();
    home?.remove();
  });

  it('a read login hides the write tool; a write login in use shows it, announced by tools/list_changed', async () => {
    sim = await startSimulator({ users: 20, rateLimit: false, warm: false, oauth: { autoApprove: true } });
    home = configHome();
    runtime = await runtimeOnLogin(sim, home.env);
    const store = new LoginStore(accountOf(sim), 'file', home.env);
    await browserlessLogin(sim, ['read'], store);
    await runtime.login!.reload();
    const served = await connect(runtime);
    try {
      let changed = 0;
      served.client.setNotificationHandler('notifications/tools/list_changed', () => void changed++);
      expect(await offered(served.client)).toEqual(reader);
      await browserlessLogin(sim, ['read', 'write'], store);
      await runtime.login!.reload();
      await expect.poll(() => changed).toBe(1);
      expect(await offered(served.client)).toEqual(writer);
      // A dry run reads the overrides with the login's token: the write tool ran upstream, not only listed.
      expect(sim.requests().some((q) => q.path.includes('get-user-budget-overrides'))).toBe(true);
    } finally {
      await served.close();
    }
  });
});
