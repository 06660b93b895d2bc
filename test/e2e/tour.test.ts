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
const DEFAULT_OFFERED = TOOLS.filter((t) => inToolsets(t, DEFAULT_TOOLSETS));

const CLI = realpathSync(fileURLToPath(new URL('../../dist/cli.js', import.meta.url)));

describe('the demo tour (npm run demo)', () => {
  let tour: SpawnSyncReturns<string>;
  // The tour syncs 60 days of the demo's history first: about 20 s on two cores, more while other tests run.
  beforeAll(() => {
    tour = spawnSync(process.execPath, [CLI, 'tour'], { encoding: 'utf8', timeout: 170_000 });
  }, 180_000);

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

  it("answers what only history answers, from the store, with the demo organization's planted cases", () => {
    expect(tour.stdout).toMatch(
      /Syncing the history store: the last 60 days and 2 months…\nHistory store: 60 days and 2 months synced in/,
    );
    const answer = (question: string) => tour.stdout.split(`> ${question}`)[1]!.split('\n> ')[0]!;
    expect(answer('Who has stopped using it (seats to reclaim)?')).toMatch(
      /Inactive since \d{4}-\d{2}-\d{2} .*: \d+ people/,
    );
    // The planted spike: a service account burning about 20 times its usual credits, ranked first.
    const unusual = answer('What was unusual in the last 30 days?');
    expect(unusual).toMatch(/kind \| who .*\n  identity_credits \| nightly-refactor \(sa\) \|/);
    expect(unusual).toContain('from the history store');
    const adoption = answer('How is adoption growing, month by month?');
    expect(adoption).toMatch(/\(history begins\)/);
    expect(adoption).toContain('from the history store');
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
