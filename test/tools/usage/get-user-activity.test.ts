import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { harness, truthAll, type Harness } from '../../helpers/mcp.js';
import { R30, TOOL_TEST_USERS } from '../../helpers/tools.js';

let h: Harness;
beforeAll(async () => {
  h = await harness({ sim: { users: TOOL_TEST_USERS } });
});
afterAll(() => h.close());

describe('get_user_activity', () => {
  it('sorts by the chosen metric and totals over every user, not only those returned', async () => {
    const a = await h.call('get_user_activity', { range: 'last_30_days', sort_by: 'total_tool_calls', limit: 5 });
    const users = await truthAll(h.sim, 'user-activity', 'users', R30);
    const sorted = [...users].sort((x, y) => y.metrics.total_tool_calls - x.metrics.total_tool_calls);
    expect(a.structured.rows.map((r: any) => r.values.total_tool_calls)).toEqual(
      sorted.slice(0, 5).map((u) => u.metrics.total_tool_calls),
    );
    expect(a.structured.total_rows).toBe(users.length);
    expect(a.structured.totals.values.total_tool_calls).toBe(users.reduce((n, u) => n + u.metrics.total_tool_calls, 0));
    expect(a.structured.totals.active_user_days).toBe(users.reduce((n, u) => n + u.active_days, 0));
  });

  it('sorts ascending and by active_days', async () => {
    const a = await h.call('get_user_activity', { sort_by: 'active_days', order: 'asc', limit: 3 });
    const days = a.structured.rows.map((r: any) => r.active_days);
    expect([...days].sort((x: number, y: number) => x - y)).toEqual(days);
  });
});
