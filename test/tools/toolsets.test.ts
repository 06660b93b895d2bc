import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.js';
import { DEFAULT_TOOLSETS, TOOLSETS, type Toolset } from '../../src/config/options-tools.js';
import { TOOLS } from '../../src/tools/index.js';
import type { ToolDef } from '../../src/tools/types.js';
import { failure, harness, type Harness } from '../helpers/mcp.js';

// Needs `npm run build` first: the usage error is the built CLI's exit code.
const CLI = fileURLToPath(new URL('../../dist/cli.js', import.meta.url));

/** The option's text, as the harness passes it to the config schema (which reads it into toolsets). */
const text = (value: string | undefined) => value as unknown as Toolset[] | undefined;

/** The names tools/list shows a server started with these toolsets. */
async function listed(toolsets: string | undefined, h: Harness): Promise<string[]> {
  const served = await harness({ simulator: h.sim, config: { toolsets: text(toolsets) } });
  try {
    return (await served.mcp.listTools()).tools.map((t) => t.name);
  } finally {
    await served.close();
  }
}

/** A tool as data, among a module's exports: what defineTool returns. */
const isTool = (value: unknown): value is ToolDef =>
  typeof value === 'object' && value !== null && 'toolset' in value && 'run' in value && 'input' in value;

let h: Harness;
beforeAll(async () => {
  h = await harness({ sim: { users: 20 } });
});
afterAll(() => h.close());

describe('toolsets', () => {
  it('puts every tool of the registry in exactly one toolset, the folder it lives in, and every toolset has tools', async () => {
    const folders: string[] = [];
    for (const set of TOOLSETS) {
      // Each toolset's folder lists its tools (src/tools/<set>/index.ts exports <SET>_TOOLS)...
      const index = (await import(`../../src/tools/${set}/index.ts`)) as Record<string, readonly ToolDef[]>;
      const tools = index[`${set.toUpperCase()}_TOOLS`]!;
      expect(tools.length, set).toBeGreaterThan(0);
      expect(tools.map((t) => [t.name, t.toolset])).toEqual(tools.map((t) => [t.name, set]));
      // ...and every tool a file of the folder defines is one of them.
      for (const file of readdirSync(new URL(`../../src/tools/${set}/`, import.meta.url))) {
        const exported = Object.values((await import(`../../src/tools/${set}/${file}`)) as Record<string, unknown>);
        for (const tool of exported.filter(isTool)) expect(tools, `${set}/${file}: ${tool.name}`).toContain(tool);
      }
      folders.push(...tools.map((t) => t.name));
    }
    // The registry is the folders' tools, each once, in the toolsets' order: no tool outside a toolset.
    expect(TOOLS.map((t) => t.name)).toEqual(folders);
    expect(new Set(folders).size).toBe(folders.length);
    for (const tool of TOOLS) expect(TOOLSETS, tool.name).toContain(tool.toolset);
  });

  it('serves every tool when none is named: every endpoint is a tool by default, in order', async () => {
    expect(DEFAULT_TOOLSETS).toEqual(TOOLSETS);
    const names = await listed(undefined, h);
    expect(names).toEqual(TOOLS.map((t) => t.name));
    expect(names).toContain('get_changelog');
    expect(names).toContain('get_editor_language_activity');
    expect(await listed('default', h)).toEqual(names);
    expect(await listed('all', h)).toEqual(names);
  });

  it('narrows to the named sets, in the registry order whatever the order named', async () => {
    expect(await listed('changelog,editors', h)).toEqual(['get_editor_language_activity', 'get_changelog']);
    expect(await listed('default,changelog', h)).toEqual(TOOLS.map((t) => t.name));
  });

  it('serves only the named sets; a call of a tool outside them is answered as an unknown tool', async () => {
    const served = await harness({ simulator: h.sim, config: { toolsets: text(' Cost , changelog') } });
    try {
      expect((await served.mcp.listTools()).tools.map((t) => t.name)).toEqual([
        'get_credit_usage',
        'get_cost_analytics',
        'get_chargeback',
        'get_changelog',
      ]);
      // As the SDK answers a name no tool has.
      const refused = await failure(served.call('get_usage_overview', {}));
      expect(refused.message).toMatch(/Tool get_usage_overview not found/);
      expect((await served.call('get_changelog', { client: 'models' })).isError).toBe(false);
    } finally {
      await served.close();
    }
  });

  it('names only offered tools in the prompts', async () => {
    const served = await harness({ simulator: h.sim, config: { toolsets: text('usage') } });
    try {
      const usage = await served.mcp.getPrompt({ name: 'usage_report', arguments: {} });
      const text = (usage.messages[0]!.content as { text: string }).text;
      expect(text).toContain('get_user_activity');
      expect(text).not.toContain('get_editor_language_activity');
      expect(text).not.toContain('get_changelog');
      // budget_review needs get_credit_usage (cost) and cost_breakdown get_cost_analytics: neither is offered.
      const { prompts } = await served.mcp.listPrompts();
      expect(prompts.map((p) => p.name)).toEqual(['usage_report']);
    } finally {
      await served.close();
    }
  });

  it('says a budgets-only server cannot review credit use, and a read-only one makes no changes', async () => {
    const budgets = await harness({ simulator: h.sim, config: { toolsets: text('budgets') } });
    const both = await harness({ simulator: h.sim, config: { toolsets: text('budgets,cost'), readOnly: true } });
    try {
      expect((await budgets.mcp.listPrompts()).prompts.map((p) => p.name)).toEqual([]);
      const review = await both.mcp.getPrompt({ name: 'budget_review' });
      const text = (review.messages[0]!.content as { text: string }).text;
      expect(text).toContain('get_credit_usage');
      expect(text).toMatch(/read-only/);
      expect(text).not.toContain('set_budget_overrides');
    } finally {
      await Promise.all([budgets.close(), both.close()]);
    }
  });

  it.each([
    [['--toolsets', 'usage,repos'], {}, "got 'repos'"],
    [[], { ANALYTICS_TOOLSETS: ' , ' }, "got ','"],
  ])('refuses %j %j, naming the choices', (argv, env, got) => {
    const load = () =>
      loadConfig(argv, { ANALYTICS_API_TOKEN: 't', ANALYTICS_BASE_URL: 'https://x.example.com', ...env });
    expect(load).toThrow(
      '--toolsets / ANALYTICS_TOOLSETS takes a comma-separated list of usage, editors, cost, budgets, changelog, insights, default or all',
    );
    expect(load).toThrow(got);
  });

  it('stops the built CLI with a usage error, exit 2, naming the choices', () => {
    const r = spawnSync(process.execPath, [CLI, '--demo', '--toolsets', 'usage,repos'], {
      encoding: 'utf8',
      timeout: 15_000,
      env: { ...process.env, ANALYTICS_TOOLSETS: '' },
    });
    expect(r.status).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/--toolsets \/ ANALYTICS_TOOLSETS takes a comma-separated list of usage, editors, cost/);
    expect(r.stderr).toMatch(/got 'repos'/);
  });
});
