import { spawn, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_TOOLSETS } from '../../src/config/options-tools.js';
import { inToolsets } from '../../src/tools/toolsets.js';
import { TOOLS } from '../../src/tools/index.js';
import { startSimulator, type Simulator } from '../../src/simulator/index.js';

/** What a server started without --toolsets offers (the variable the tests set does not reach this one). */
const DEFAULT_OFFERED = TOOLS.filter((t) => inToolsets(t, DEFAULT_TOOLSETS));

const CLI = fileURLToPath(new URL('../../dist/cli.js', import.meta.url));

async function connect(args: string[], env: Record<string, string> = {}, mode: 'legacy' | 'auto' = 'legacy') {
  const transport = new StdioClientTransport({ command: process.execPath, args: [CLI, ...args], env, stderr: 'pipe' });
  let stderr = '';
  transport.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  const client = new Client({ name: 'e2e', version: '1.0.0' }, { versionNegotiation: { mode } });
  await client.connect(transport);
  return { client, stderr: () => stderr };
}

/** The binary on raw pipes: what it writes to stdout, line by line, and whether it has exited. */
function spawnRaw(args: string[]) {
  const child = spawn(process.execPath, [CLI, ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stdin.on('error', () => {});
  const lines = () =>
    out
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as Record<string, any>);
  const until = async (done: () => boolean, ms = 10_000) => {
    for (const end = Date.now() + ms; !done() && Date.now() < end;) await new Promise((r) => setTimeout(r, 50));
    return done();
  };
  const send = (msg: object) => child.stdin.write(`${JSON.stringify(msg)}\n`);
  const initialize = async () => {
    send({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    });
    await until(() => out.includes('"id":1'));
    send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  };
  const exited = () => until(() => child.exitCode !== null || child.signalCode !== null, 6_000);
  return { child, lines, until, send, initialize, exited };
}

const OVER_10_MIB = 10 * 1024 * 1024 + 1;

describe('the built binary over stdio', () => {
  for (const mode of ['legacy', 'auto'] as const) {
    it(`serves --demo to a ${mode === 'auto' ? '2026-07-28' : '2025-era'} client`, async () => {
      const { client, stderr } = await connect(['--demo'], {}, mode);
      try {
        expect(client.getNegotiatedProtocolVersion()).toBe(mode === 'auto' ? '2026-07-28' : '2025-11-25');
        const { tools } = await client.listTools();
        expect(tools).toHaveLength(DEFAULT_OFFERED.length);
        const r = await client.callTool({ name: 'get_active_user_counts', arguments: { range: 'last_30_days' } });
        expect(r.isError).toBeFalsy();
        expect((r.content as Array<{ text: string }>)[0]!.text).toMatch(/Daily active users/);
        expect(stderr()).toMatch(/serving MCP on stdio/);
      } finally {
        await client.close();
      }
    });
  }

  it('hides set_budget_overrides with --read-only', async () => {
    const { client } = await connect(['--demo', '--read-only']);
    try {
      expect((await client.listTools()).tools.map((t) => t.name)).not.toContain('set_budget_overrides');
    } finally {
      await client.close();
    }
  });

  it('writes nothing but protocol messages to stdout, and logs to stderr', async () => {
    const child = spawn(process.execPath, [CLI, '--demo', '--log-level', 'debug'], { stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const send = (msg: object) => child.stdin.write(`${JSON.stringify(msg)}\n`);
    send({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    });
    await new Promise((r) => setTimeout(r, 700));
    send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'get_daily_usage', arguments: {} } });
    for (let i = 0; i < 50 && !out.includes('"id":2'); i++) await new Promise((r) => setTimeout(r, 100));
    child.stdin.end();
    await new Promise((r) => child.once('exit', r));
    const lines = out.trim().split('\n');
    expect(lines.length).toBeGreaterThanOrEqual(2);
    for (const line of lines) expect(JSON.parse(line)).toMatchObject({ jsonrpc: '2.0' });
    expect(JSON.parse(lines[0]!).result.protocolVersion).toBe('2025-06-18');
    expect(err).toMatch(/"level":"debug","message":"tool done"/);
  });

  describe('a message over 10 MiB', () => {
    it('is answered with an error, and the next request is still answered', async () => {
      const server = spawnRaw(['--demo']);
      try {
        await server.initialize();
        server.child.stdin.write(`${'x'.repeat(OVER_10_MIB)}\n`);
        server.send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
        expect(await server.until(() => server.lines().some((l) => l.id === 2))).toBe(true);
        const [, tooLarge, listed] = server.lines();
        expect(tooLarge).toEqual({
          jsonrpc: '2.0',
          error: {
            code: -32600,
            message: expect.stringMatching(
              /^Message too large: 10485761 bytes, over the 10485760-byte \(10 MiB\) limit/,
            ),
          },
        });
        expect(listed!.result.tools).toHaveLength(TOOLS.length);
      } finally {
        server.child.kill();
      }
    });

    it('fails only its own request, for an SDK client of either era', async () => {
      for (const mode of ['legacy', 'auto'] as const) {
        const { client } = await connect(['--demo'], {}, mode);
        try {
          await expect(
            client.callTool({ name: 'get_daily_usage', arguments: { padding: 'x'.repeat(OVER_10_MIB) } }),
          ).rejects.toThrow(/Message too large/);
          const r = await client.callTool({ name: 'get_daily_usage', arguments: {} });
          expect(r.isError).toBeFalsy();
        } finally {
          await client.close();
        }
      }
    });
  });

  describe('a line that is no JSON-RPC message', () => {
    const BAD: Array<[string, string, number, (string | number)?]> = [
      ['text that is not JSON', '{"jsonrpc": "2.0", "id": 5, "method": "tools/li', -32700],
      ['a batch', JSON.stringify([{ jsonrpc: '2.0', id: 6, method: 'tools/list' }]), -32600],
      ['"jsonrpc": "1.0"', JSON.stringify({ jsonrpc: '1.0', id: 7, method: 'tools/list' }), -32600, 7],
      ['a JSON string', '"tools/list"', -32600],
      ['null', 'null', -32600],
      ['an object with no method, result or error', JSON.stringify({ jsonrpc: '2.0', id: 'x-8' }), -32600, 'x-8'],
      ['a request whose id is null', JSON.stringify({ jsonrpc: '2.0', id: null, method: 'tools/list' }), -32600],
    ];

    it('gets the JSON-RPC error, with its id when it has one, and the next request is answered', async () => {
      const server = spawnRaw(['--demo']);
      try {
        await server.initialize();
        for (const [, line] of BAD) server.child.stdin.write(`${line}\n`);
        server.send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
        expect(await server.until(() => server.lines().some((l) => l.id === 2))).toBe(true);
        const errors = server.lines().filter((l) => l.error);
        expect(errors).toHaveLength(BAD.length);
        BAD.forEach(([what, , code, id], i) => {
          expect(errors[i], what).toEqual({
            jsonrpc: '2.0',
            ...(id === undefined ? {} : { id }),
            error: { code, message: expect.stringMatching(code === -32700 ? /^Parse error/ : /^Invalid Request/) },
          });
        });
        expect(server.lines().find((l) => l.id === 2)!.result.tools).toHaveLength(TOOLS.length);
      } finally {
        server.child.kill();
      }
    });

    it('passes a blank line over in silence', async () => {
      const server = spawnRaw(['--demo']);
      try {
        await server.initialize();
        server.child.stdin.write('\n  \r\n');
        server.send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
        expect(await server.until(() => server.lines().some((l) => l.id === 2))).toBe(true);
        expect(server.lines().filter((l) => l.error)).toEqual([]);
      } finally {
        server.child.kill();
      }
    });
  });

  describe('--demo exits with code 0 once the client is gone', () => {
    it.each([
      ['stdin ends right after initialize', async (_s: ReturnType<typeof spawnRaw>) => {}],
      [
        'stdin ends after a tool call',
        async (s: ReturnType<typeof spawnRaw>) => {
          s.send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'get_daily_usage', arguments: {} } });
          await s.until(() => s.lines().some((l) => l.id === 2));
        },
      ],
      [
        'stdin ends after an over-long line',
        async (s: ReturnType<typeof spawnRaw>) => {
          // Well over the limit, so that unread input is still waiting when stdin ends.
          s.child.stdin.write(`${'x'.repeat(11 * 1024 * 1024)}\n`);
          await s.until(() => s.lines().length === 2, 3_000);
        },
      ],
      [
        'the client stopped reading stdout',
        async (s: ReturnType<typeof spawnRaw>) => {
          s.child.stdout.destroy();
          s.send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
          await new Promise((r) => setTimeout(r, 300));
        },
      ],
    ])('%s', async (_case, before) => {
      const server = spawnRaw(['--demo']);
      try {
        await server.initialize();
        await before(server);
        server.child.stdin.end();
        expect(await server.exited()).toBe(true);
        expect(server.child.exitCode).toBe(0);
      } finally {
        server.child.kill('SIGKILL');
      }
    });
  });

  describe('against a real API configuration (the standalone simulator)', () => {
    let sim: Simulator;
    beforeAll(async () => {
      sim = await startSimulator({ users: 50, token: 'real-token-123', rateLimit: true });
    });
    afterAll(() => sim.close());

    it('uses ANALYTICS_API_TOKEN and ANALYTICS_BASE_URL, and never logs the token', async () => {
      const { client, stderr } = await connect(['--log-level', 'debug'], {
        ANALYTICS_API_TOKEN: 'real-token-123',
        ANALYTICS_BASE_URL: sim.url,
      });
      try {
        const r = await client.callTool({ name: 'get_budget_overrides', arguments: {} });
        expect(r.isError).toBeFalsy();
        expect(sim.requests().at(-1)).toMatchObject({ auth: 'write', path: '/analytics/v0/get-user-budget-overrides' });
      } finally {
        await client.close();
      }
      expect(stderr()).not.toContain('real-token-123');
    });
  });

  it('exits with a message naming both remedies when there is no token and no --demo', () => {
    const run = spawnSync(process.execPath, [CLI], { encoding: 'utf8', env: { PATH: process.env.PATH ?? '' } });
    expect(run.status).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(/ANALYTICS_API_TOKEN and ANALYTICS_BASE_URL are not set/);
    expect(run.stderr).toMatch(/--demo/);
  });

  it.each([
    [['--pii', 'everything'], /pii/],
    [['--frobnicate'], /Unknown option '--frobnicate'/],
  ])('refuses bad flags %j', (args, message) => {
    const run = spawnSync(process.execPath, [CLI, '--demo', ...args], { encoding: 'utf8' });
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(message);
  });

  it('prints help and version', () => {
    expect(spawnSync(process.execPath, [CLI, '--help'], { encoding: 'utf8' }).stdout).toMatch(
      /ANALYTICS_API_TOKEN[\s\S]*--read-only[\s\S]*--pii/,
    );
    expect(spawnSync(process.execPath, [CLI, '--version'], { encoding: 'utf8' }).stdout.trim()).toMatch(
      /^\d+\.\d+\.\d+$/,
    );
  });
});
