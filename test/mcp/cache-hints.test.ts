import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createMcpHandler } from '@modelcontextprotocol/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer } from '../../src/mcp/server.js';
import type { ServerDeps } from '../../src/mcp/server-deps.js';
import { VIEWS } from '../../src/ui/views.js';
import { DEFAULT_REFRESH_HOUR_UTC as REFRESH_HOUR_UTC } from '../../src/domain/published-days.js';
import { harness, type Harness } from '../helpers/mcp.js';

const TEN_MINUTES = 600_000;
type Hinted = Record<string, unknown> & { ttlMs?: unknown; cacheScope?: unknown };

/** The client would serve a fresh answer from its own cache: these read what the server says now. */
const FRESH = { cacheMode: 'bypass' } as const;

/** Every cacheable answer the issue names: the three lists, the changelog and each view. */
async function answers(mcp: Client): Promise<Record<string, Hinted>> {
  const out: Record<string, Hinted> = {
    'tools/list': await mcp.listTools(undefined, FRESH),
    'prompts/list': await mcp.listPrompts(undefined, FRESH),
    'resources/list': await mcp.listResources(undefined, FRESH),
    changelog: await mcp.readResource({ uri: 'changelog://all/0' }, FRESH),
  };
  for (const view of Object.values(VIEWS)) out[view.uri] = await mcp.readResource({ uri: view.uri }, FRESH);
  return out;
}

/** A 2026-07-28 client of a server built from `deps`, served as --http serves it. */
async function modernClient(deps: ServerDeps) {
  const handler = createMcpHandler(() => createServer(deps));
  const mcp = new Client({ name: 'hints', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
  await mcp.connect(
    new StreamableHTTPClientTransport(new URL('http://in-process.test/mcp'), {
      fetch: (url, init) => handler.fetch(new Request(url, init)),
    }),
  );
  return { mcp, close: () => mcp.close().then(() => handler.close()) };
}

describe('cache hints to a 2026-07-28 client', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await harness({ era: 'modern', sim: { users: 20 } });
  });
  afterAll(() => h.close());

  it.each([
    // In this order: the clock only moves forward, as the server's cache expects.
    [
      'before the refresh hour: until the refresh today',
      `2026-11-21T${String(REFRESH_HOUR_UTC - 1).padStart(2, '0')}:30:00.000Z`,
      '2026-11-21',
    ],
    [
      'after the refresh hour: until the refresh tomorrow',
      `2026-11-21T${String(REFRESH_HOUR_UTC + 8).padStart(2, '0')}:00:00.000Z`,
      '2026-11-22',
    ],
  ])('%s', async (_, now, refreshDay) => {
    h.sim.clock.set(now);
    const refresh = Date.parse(`${refreshDay}T${String(REFRESH_HOUR_UTC).padStart(2, '0')}:00:00.000Z`);
    const untilRefresh = refresh - Date.parse(now);
    for (const [what, answer] of Object.entries(await answers(h.mcp))) {
      expect(answer.cacheScope, what).toBe('public');
      if (what === 'changelog') {
        // The changelog holds while the server's cache keeps it, and never past the refresh.
        expect(answer.ttlMs, what).toBe(Math.min(TEN_MINUTES, untilRefresh));
      } else {
        expect(answer.ttlMs, what).toBe(untilRefresh);
      }
    }
  });

  it('says the same of server/discover, which the client asked while connecting', () => {
    const discovered = h.mcp.getDiscoverResult() as Hinted | undefined;
    expect(discovered?.cacheScope).toBe('public');
    expect(discovered?.ttlMs).toBeGreaterThan(0);
  });

  it('counts down: a changelog page read from the cache holds only what is left of its ten minutes', async () => {
    h.sim.clock.set('2026-11-21T12:00:00.000Z');
    await h.mcp.readResource({ uri: 'changelog://vscode/0' }, FRESH);
    h.sim.clock.advance(4 * 60_000);
    const again = (await h.mcp.readResource({ uri: 'changelog://vscode/0' }, FRESH)) as Hinted;
    expect(again.ttlMs).toBe(6 * 60_000);
    const refresh = Date.parse(`2026-11-22T${String(REFRESH_HOUR_UTC).padStart(2, '0')}:00:00.000Z`);
    expect(((await h.mcp.listTools(undefined, FRESH)) as Hinted).ttlMs).toBe(refresh - h.sim.clock.now());
  });

  it.each([
    ['an authenticated caller', { caller: { id: 'ana@example.com', via: 'api-key', role: 'read', tenant: null } }],
    ['a personal login', { login: { canWrite: () => false, onChange: () => () => {} } }],
  ] as const)('marks nothing public for %s: the answers depend on who asks', async (_, who) => {
    h.sim.clock.set('2026-11-21T10:00:00.000Z');
    const served = await modernClient({ ...h.deps, ...(who as Partial<ServerDeps>) });
    try {
      for (const [what, answer] of Object.entries(await answers(served.mcp))) {
        expect(answer.cacheScope, what).toBe('private');
        expect(answer.ttlMs, what).toBeGreaterThan(0);
      }
    } finally {
      await served.close();
    }
  });
});

describe('cache hints to a 2025-era client', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await harness({ era: 'legacy', sim: { users: 20 } });
  });
  afterAll(() => h.close());

  it('are not sent: the fields are not in its revision', async () => {
    for (const [what, answer] of Object.entries(await answers(h.mcp))) {
      expect(answer, what).not.toHaveProperty('ttlMs');
      expect(answer, what).not.toHaveProperty('cacheScope');
    }
  });
});
