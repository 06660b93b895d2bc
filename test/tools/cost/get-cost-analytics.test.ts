import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sumDecimals, tidyDecimal } from '../../../src/domain/numbers.js';
import { harness, truth, truthAll, type Harness } from '../../helpers/mcp.js';
import { R30, TOOL_TEST_USERS } from '../../helpers/tools.js';

let h: Harness;
beforeAll(async () => {
  h = await harness({ sim: { users: TOOL_TEST_USERS } });
});
afterAll(() => h.close());

describe('get_cost_analytics', () => {
  it('answers "cost by model last month" with exact totals', async () => {
    const a = await h.call('get_cost_analytics', { range: 'previous_month', group_by: ['resource'] });
    const total = (await truth(h.sim, 'cost-analytics', {}, { start_date: '2026-10-01', end_date: '2026-10-31' }))
      .data_points[0].cost_metrics;
    expect(a.structured.totals.billed_amount_usd).toBe(sumDecimals([total.billed_amount_usd]));
    // The total is written as the upstream writes amounts (trailing zeros dropped).
    expect(tidyDecimal(sumDecimals(a.structured.rows.map((r: any) => r.cost.billed_amount_usd)))).toBe(
      a.structured.totals.billed_amount_usd,
    );
    expect(a.structured.totals.cache_read_tokens).toBe(total.cache_read_tokens);
    expect(a.structured.rows[0].resource).toBeTruthy();
    expect(a.text).toMatch(/billed \$[\d,]+\.\d\d/);
  });

  it('accepts the full group-by names and filters, and groups per day', async () => {
    const users = await truthAll(h.sim, 'user-activity', 'users', R30);
    const email = users.find((u) => u.user_email).user_email;
    const a = await h.call('get_cost_analytics', {
      ...R30,
      group_by: ['COST_ANALYTICS_GROUP_BY_USER', 'product'],
      granularity: 'day',
      filters: { user_emails: [email] },
      limit: 1000,
    });
    expect(a.isError).toBe(false);
    expect(a.structured.rows.every((r: any) => r.user === email && r.start_date === r.end_date && r.product)).toBe(
      true,
    );
  });
});
