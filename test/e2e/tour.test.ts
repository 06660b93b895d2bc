import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_TOOLSETS } from '../../src/config/options-tools.js';
import { inToolsets } from '../../src/tools/toolsets.js';
import { TOOLS } from '../../src/tools/index.js';

/** What a server started without --toolsets offers (the variable the tests set does not reach this one). */
const DEFAULT_OFFERED = TOOLS.filter((t) => inToolsets(t.name, DEFAULT_TOOLSETS));

const CLI = realpathSync(fileURLToPath(new URL('../../dist/cli.js', import.meta.url)));

describe('the demo tour (npm run demo)', () => {
  let tour: SpawnSyncReturns<string>;
  beforeAll(() => {
    tour = spawnSync(process.execPath, [CLI, 'tour'], { encoding: 'utf8', timeout: 60_000 });
  });

  it('says what the simulated organization holds, as the README does', () => {
    expect(tour.status, tour.stderr).toBe(0);
    expect(tour.stdout).toMatch(
      /a simulated organization of 800 people \(\d+ of them former members\) and 8 service accounts/,
    );
  });

  it('asks who is about to hit their budget, and answers with statuses', () => {
    expect(tour.stdout).toMatch(/> Who is about to hit their budget this month\?\n  get_budget_status/);
    expect(tour.stdout).toMatch(/Budgets \(credits, monthly\), month to date/);
  });

  it('closes with a command that works from the clone, not an unpublished npx package', async () => {
    expect(tour.stdout).not.toMatch(/npx -y/);
    const printed = /claude mcp add org-analytics -- (node \S+ --demo)/.exec(tour.stdout)?.[1];
    expect(printed).toBe(`node ${CLI} --demo`);
    const [, script, ...args] = printed!.split(' ');
    const client = new Client({ name: 'tour-check', version: '1.0.0' });
    await client.connect(
      new StdioClientTransport({ command: process.execPath, args: [script!, ...args], stderr: 'pipe' }),
    );
    try {
      expect((await client.listTools()).tools).toHaveLength(DEFAULT_OFFERED.length);
    } finally {
      await client.close();
    }
  });
});
