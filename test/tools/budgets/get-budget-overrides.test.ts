import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { harness, truth, type Harness } from '../../helpers/mcp.js';
import { TOOL_TEST_USERS } from '../../helpers/tools.js';

let h: Harness;
beforeAll(async () => {
  h = await harness({ sim: { users: TOOL_TEST_USERS } });
});
afterAll(() => h.close());

describe('get_budget_overrides', () => {
  it('lists the overrides of the plan with counts', async () => {
    const a = await h.call('get_budget_overrides', { limit: 1000 });
    const overrides = (await truth(h.sim, 'get-user-budget-overrides', {}, {})).overrides;
    expect(a.structured.total_rows).toBe(overrides.length);
    expect(a.structured.rows.every((r: any) => r.resource === 'credits' && r.period === 'monthly')).toBe(true);
    expect(a.structured.counts.cleared).toBe(overrides.filter((o: any) => o.config.limit === '').length);
  });

  it('says which identities are unknown, as a tool error', async () => {
    const a = await h.call('get_budget_overrides', { user_emails: ['ghost@northwind.example'] });
    expect(a.isError).toBe(true);
    expect(a.text).toMatch(/ghost@northwind\.example/);
  });
});
