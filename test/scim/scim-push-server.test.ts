import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.js';
import { startHttp } from '../../src/main.js';
import { createRuntime, type Runtime } from '../../src/runtime/runtime.js';
import { startSimulator, type Simulator } from '../../src/simulator/index.js';
import { scimPush, todaysPeople } from '../../src/simulator/scim-push.js';
import type { HttpServing } from '../../src/transports/http.js';
import { formatDay } from '../../src/util/utc-date.js';
import { freePort } from '../helpers/redis-server.js';
import { NOW } from '../helpers/sim.js';

const VARIABLE = `OAM_SCIM_TOKEN_${process.pid}`;
const dir = mkdtempSync(join(tmpdir(), 'scim-server-'));
let sim: Simulator;
let runtime: Runtime;
let server: HttpServing;
let port: number;

beforeAll(async () => {
  sim = await startSimulator({ users: 300, now: NOW, rateLimit: false, token: 'rw' });
  port = await freePort();
  process.env[VARIABLE] = 'scim-secret';
  const config = loadConfig(['--http', '--port', String(port), '--scim-token-env', VARIABLE, '--history', 'none'], {
    ANALYTICS_API_TOKEN: sim.token,
    ANALYTICS_BASE_URL: sim.url,
    ANALYTICS_CACHE_DIR: dir,
    ANALYTICS_LOG_LEVEL: 'error',
  });
  runtime = await createRuntime(config);
  server = await startHttp(runtime);
}, 60_000);
afterAll(async () => {
  await server?.close();
  await runtime?.close();
  await sim?.close();
  delete process.env[VARIABLE];
  rmSync(dir, { recursive: true, force: true });
});

describe("the simulator's chart pushed by SCIM to the server", () => {
  it('becomes the directory the tools answer with, team by team', async () => {
    const chart = sim.state.orgChart();
    const today = formatDay(sim.state.org.anchorDay);
    const base = `http://127.0.0.1:${port}/scim/v2`;
    // An MCP caller's token is not the SCIM token.
    expect((await fetch(`${base}/Users`, { headers: { authorization: 'Bearer rw' } })).status).toBe(401);
    const pushed = await scimPush(chart, { url: base, token: 'scim-secret', today });
    const people = todaysPeople(chart, today);
    expect(pushed.users).toBe(people.size);

    const pushedAt = new Date().toISOString();
    // The directory is handed over a second after the last change.
    await expect
      .poll(async () => ((await runtime.org!.over(today, today))?.source.loadedAt ?? '') > pushedAt, {
        timeout: 10_000,
      })
      .toBe(true);
    const view = (await runtime.org!.over(today, today))!;
    expect(view.directory.size).toBe(people.size);
    expect(view.source).toMatchObject({ kind: 'scim', name: 'scim' });
    for (const [email, p] of people) {
      const teams = view.directory.membersOn(`u:${email}`, today).map((m) => m.path);
      expect(teams.sort()).toEqual([...p.teams].sort());
      expect(view.directory.membersOn(`u:${email}`, today)[0]!.attributes.cost_center).toBe(p.costCenter);
    }

    const mcp = new Client({ name: 'scim-test', version: '1.0.0' });
    await mcp.connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`)));
    try {
      const teams = await mcp.callTool({ name: 'get_teams', arguments: { max_level: 1 } });
      expect((teams.structuredContent as { directory: { source: string } }).directory.source).toBe('scim: scim');
      const byTeam = await mcp.callTool({
        name: 'get_user_activity',
        arguments: { start_date: '2026-10-01', end_date: '2026-10-31', group_by: 'team:1' },
      });
      const groups = (byTeam.structuredContent as { groups: { rows: Array<{ group: string }> } }).groups;
      expect(groups.rows.map((r) => r.group)).toContain('Engineering');

      // October's chargeback by the pushed cost centers reconciles to the organization's cost to the cent.
      const charge = await mcp.callTool({ name: 'get_chargeback', arguments: { start_month: '2026-10' } });
      const lines = charge.structuredContent as {
        lines: Array<{ group: string }>;
        difference_usd: string;
        organization_total_usd: string;
      };
      expect(charge.isError).toBeFalsy();
      expect(lines.lines.length).toBeGreaterThan(1);
      expect(lines.difference_usd).toMatch(/^0(\.0+)?$/);
      const centers = new Set([...people.values()].map((p) => p.costCenter));
      for (const line of lines.lines) expect([...centers, '(unassigned)', '(no person)']).toContain(line.group);

      // A team budget as of today covers the team's pushed members (and those of the teams below it).
      const team = 'Engineering';
      const members = [...people.values()].filter((p) => p.teams.some((t) => t === team || t.startsWith(`${team}/`)));
      const dry = await mcp.callTool({
        name: 'set_budget_overrides',
        arguments: { team, limit: '1234', dry_run: true },
      });
      expect(dry.isError).toBeFalsy();
      expect((dry.structuredContent as { team: { members: number } }).team.members).toBe(members.length);
    } finally {
      await mcp.close();
    }
  }, 120_000);
});
