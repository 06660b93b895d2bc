import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../src/simulator/index.js';

const CLI = fileURLToPath(new URL('../../dist/cli.js', import.meta.url));
const SET = '/analytics/v0/set-user-budget-overrides';

let sim: Simulator;
let dir: string;
beforeAll(async () => {
  // The upstream runs in this test process, so that killing the server does not kill it.
  sim = await startSimulator({ users: 50, token: 'crash-token', rateLimit: false });
  dir = mkdtempSync(join(tmpdir(), 'oam-crash-'));
});
afterAll(async () => {
  await sim.close();
  rmSync(dir, { recursive: true, force: true });
});

async function startServer(auditLog: string) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, '--confirm-writes', 'never', '--audit-log', auditLog],
    env: { ANALYTICS_API_TOKEN: 'crash-token', ANALYTICS_BASE_URL: sim.url, ANALYTICS_BILLING_PLAN: 'credits' },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  const client = new Client({ name: 'crash-e2e', version: '1.0.0' });
  await client.connect(transport);
  return { client, pid: transport.pid!, stderr: () => stderr };
}

async function until(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((r) => setTimeout(r, 50));
  if (!check()) throw new Error(`timed out waiting for ${what}`);
}

const readLines = (path: string) =>
  readFileSync(path, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));

describe('a server killed while a budget write is with the upstream', () => {
  it('leaves the intent on record, and the next start says so once on stderr', async () => {
    const auditLog = join(dir, 'audit.log');
    const [a, b] = sim.state.org.identities
      .filter((i) => i.kind === 'user' && i.leaveDay === Infinity)
      .map((i) => i.id);
    sim.injectFault({ path: SET, kind: 'hang' });

    const first = await startServer(auditLog);
    const call = first.client
      .callTool({
        name: 'set_budget_overrides',
        arguments: {
          overrides: [
            { user_email: a, limit: '4444' },
            { user_email: b, limit: '5555' },
          ],
        },
      })
      .catch((error: unknown) => error);
    await until(() => sim.requests().some((r) => r.path === SET), 'the write to reach the upstream');
    process.kill(first.pid, 'SIGKILL');
    expect(await call).toBeInstanceOf(Error);

    const lines = readLines(auditLog);
    expect(lines.map((l) => [l.event, l.identity, l.after])).toEqual([
      ['budget_override_intent', a, '4444'],
      ['budget_override_intent', b, '5555'],
    ]);
    const chunk = lines[0].chunk as string;
    expect(chunk).toMatch(/^[0-9a-f]{16}$/);
    expect(lines[1].chunk).toBe(chunk);

    const second = await startServer(auditLog);
    try {
      await until(() => /WARNING/.test(second.stderr()), 'the warning');
      const warnings = second
        .stderr()
        .split('\n')
        .filter((l) => l.includes('WARNING'));
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toContain(`chunk ${chunk} (2 changes, sent ${lines[0].time})`);
      expect(warnings[0]).toMatch(/may or may not have been applied.*get_budget_overrides/);
    } finally {
      await second.client.close();
    }
    expect(readLines(auditLog).at(-1)).toMatchObject({ event: 'budget_override_unfinished', chunks: [chunk] });
  }, 30_000);
});
