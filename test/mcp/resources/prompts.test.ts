import { ProtocolErrorCode } from '@modelcontextprotocol/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { failure, harness, type Harness } from '../../helpers/mcp.js';

let h: Harness;
beforeAll(async () => {
  h = await harness({ sim: { users: 20 } });
});
afterAll(() => h.close());

describe('prompts', () => {
  it('lists the four prompts', async () => {
    const { prompts } = await h.mcp.listPrompts();
    expect(prompts.map((p) => p.name)).toEqual(['usage_report', 'budget_review', 'cost_breakdown', 'seat_review']);
  });

  it('leads a seat review to the three tools that only history answers', async () => {
    const review = await h.mcp.getPrompt({ name: 'seat_review' });
    const text = (review.messages[0]!.content as { text: string }).text;
    for (const tool of ['find_inactive_people', 'find_anomalies', 'get_adoption']) expect(text).toContain(tool);
  });

  it('leads to the right tools, with the range filled in', async () => {
    const usage = await h.mcp.getPrompt({ name: 'usage_report', arguments: { range: 'previous_month' } });
    const text = (usage.messages[0]!.content as { text: string }).text;
    expect(text).toMatch(/previous_month/);
    for (const tool of [
      'get_active_user_counts',
      'get_daily_usage',
      'get_user_activity',
      'get_editor_language_activity',
      'get_changelog',
    ])
      expect(text).toContain(tool);
    const budget = await h.mcp.getPrompt({ name: 'budget_review' });
    expect((budget.messages[0]!.content as { text: string }).text).toMatch(/dry_run true first/);
  });

  it('refuses a range it does not know as invalid params, in the words of the tools', async () => {
    const error = await failure(h.mcp.getPrompt({ name: 'usage_report', arguments: { range: 'last_week' } }));
    expect(error.code).toBe(ProtocolErrorCode.InvalidParams);
    expect(error.message).toContain(
      'Invalid arguments for usage_report: range: Invalid option: expected one of "last_7_days"',
    );
    expect(error.message).toMatch(/Change the arguments and call again\.$/);
    expect(error.message).not.toMatch(/Invalid arguments for prompt/);
  });

  it('completes the range argument', async () => {
    const { completion } = await h.mcp.complete({
      ref: { type: 'ref/prompt', name: 'cost_breakdown' },
      argument: { name: 'range', value: 'last' },
    });
    expect(completion.values).toEqual(['last_7_days', 'last_30_days', 'last_90_days']);
  });
});
