import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { harness, truth, type Harness } from '../../helpers/mcp.js';
import { R30, TOOL_TEST_USERS } from '../../helpers/tools.js';

let h: Harness;
beforeAll(async () => {
  h = await harness({ sim: { users: TOOL_TEST_USERS } });
});
afterAll(() => h.close());

describe('get_daily_usage', () => {
  it('returns the chosen metrics per day and exact totals', async () => {
    const a = await h.call('get_daily_usage', { ...R30, metrics: ['total_messages', 'remote_agent_messages'] });
    const days = (await truth(h.sim, 'daily-usage', R30)).daily_usage;
    expect(a.structured.days).toHaveLength(days.length);
    expect(a.structured.totals.total_messages).toBe(
      days.reduce((n: number, d: any) => n + d.metrics.total_messages, 0),
    );
    expect(Object.keys(a.structured.days[0].values)).toEqual(['total_messages', 'remote_agent_messages']);
    // Zero-valued noise stays out of the text.
    expect(a.text).toMatch(/All zero: remote_agent_messages/);
    expect(a.text.split('\n')[2]).not.toMatch(/remote_agent_messages/);
  });
});
