import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { harness, type Harness } from '../helpers/mcp.js';

let h: Harness;
beforeAll(async () => {
  h = await harness({ sim: { users: 20 } });
});
afterAll(() => h.close());

describe('the changelog resource', () => {
  it('lists changelog://all/0 and the template', async () => {
    const { resources } = await h.mcp.listResources();
    expect(resources).toEqual([expect.objectContaining({ uri: 'changelog://all/0', mimeType: 'application/json' })]);
    const { resourceTemplates } = await h.mcp.listResourceTemplates();
    expect(resourceTemplates.map((t) => t.uriTemplate)).toEqual(['changelog://{client}/{page}']);
  });

  it('reads a page as JSON', async () => {
    const { contents } = await h.mcp.readResource({ uri: 'changelog://cli/1' });
    expect(contents[0]!.mimeType).toBe('application/json');
    const body = JSON.parse((contents[0] as { text: string }).text);
    expect(body).toMatchObject({ client: 'cli', page: 1, pageSize: 10 });
  });

  it('completes the client argument', async () => {
    const { completion } = await h.mcp.complete({ ref: { type: 'ref/resource', uri: 'changelog://{client}/{page}' }, argument: { name: 'client', value: 'c' } });
    expect(completion.values).toEqual(['cli', 'code-review']);
  });

  it('refuses an unknown client as a protocol error naming the valid ones', async () => {
    await expect(h.mcp.readResource({ uri: 'changelog://emacs/0' })).rejects.toThrow(/vscode, jetbrains/);
  });
});

describe('prompts', () => {
  it('lists the three prompts', async () => {
    const { prompts } = await h.mcp.listPrompts();
    expect(prompts.map((p) => p.name)).toEqual(['usage_report', 'budget_review', 'cost_breakdown']);
  });

  it('leads to the right tools, with the range filled in', async () => {
    const usage = await h.mcp.getPrompt({ name: 'usage_report', arguments: { range: 'previous_month' } });
    const text = (usage.messages[0]!.content as { text: string }).text;
    expect(text).toMatch(/previous_month/);
    for (const tool of ['get_active_user_counts', 'get_daily_usage', 'get_user_activity', 'get_editor_language_activity']) expect(text).toContain(tool);
    const budget = await h.mcp.getPrompt({ name: 'budget_review' });
    expect((budget.messages[0]!.content as { text: string }).text).toMatch(/dry_run true first/);
  });

  it('completes the range argument', async () => {
    const { completion } = await h.mcp.complete({ ref: { type: 'ref/prompt', name: 'cost_breakdown' }, argument: { name: 'range', value: 'last' } });
    expect(completion.values).toEqual(['last_7_days', 'last_30_days', 'last_90_days']);
  });
});
