import { spawn, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../src/simulator/index.js';

const CLI = fileURLToPath(new URL('../../dist/cli.js', import.meta.url));

async function connect(args: string[], env: Record<string, string> = {}, mode: 'legacy' | 'auto' = 'legacy') {
  const transport = new StdioClientTransport({ command: process.execPath, args: [CLI, ...args], env, stderr: 'pipe' });
  let stderr = '';
  transport.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  const client = new Client({ name: 'e2e', version: '1.0.0' }, { versionNegotiation: { mode } });
  await client.connect(transport);
  return { client, stderr: () => stderr };
}

describe('the built binary over stdio', () => {
  for (const mode of ['legacy', 'auto'] as const) {
    it(`serves --demo to a ${mode === 'auto' ? '2026-07-28' : '2025-era'} client`, async () => {
      const { client, stderr } = await connect(['--demo'], {}, mode);
      try {
        expect(client.getNegotiatedProtocolVersion()).toBe(mode === 'auto' ? '2026-07-28' : '2025-11-25');
        const { tools } = await client.listTools();
        expect(tools).toHaveLength(10);
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
    send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });
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

  describe('against a real API configuration (the standalone simulator)', () => {
    let sim: Simulator;
    beforeAll(async () => {
      sim = await startSimulator({ users: 50, token: 'real-token-123', rateLimit: true });
    });
    afterAll(() => sim.close());

    it('uses ANALYTICS_API_TOKEN and ANALYTICS_BASE_URL, and never logs the token', async () => {
      const { client, stderr } = await connect(['--log-level', 'debug'], { ANALYTICS_API_TOKEN: 'real-token-123', ANALYTICS_BASE_URL: sim.url });
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
    expect(spawnSync(process.execPath, [CLI, '--help'], { encoding: 'utf8' }).stdout).toMatch(/ANALYTICS_API_TOKEN[\s\S]*--read-only[\s\S]*--pii/);
    expect(spawnSync(process.execPath, [CLI, '--version'], { encoding: 'utf8' }).stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
  });
});
