import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { harness, truthAll, type Harness } from '../../helpers/mcp.js';
import { R30, TOOL_TEST_USERS, idOf } from '../../helpers/tools.js';

let h: Harness;
beforeAll(async () => {
  h = await harness({ sim: { users: TOOL_TEST_USERS } });
});
afterAll(() => h.close());

describe('get_credit_usage', () => {
  it('answers "top 10 by credits over 30 days" with the right people and totals', async () => {
    const a = await h.call('get_credit_usage', { range: 'last_30_days', limit: 10 });
    const range = { start_date: '2026-10-23', end_date: '2026-11-21' };
    const records = await truthAll(h.sim, 'credit-usage-by-user', 'records', range);
    const top = [...records]
      .sort((x, y) => y.credits_consumed - x.credits_consumed || (idOf(x) < idOf(y) ? -1 : 1))
      .slice(0, 10);
    expect(a.structured.rows.map((r: any) => [r.user, r.credits_consumed])).toEqual(
      top.map((r) => [idOf(r), r.credits_consumed]),
    );
    expect(a.structured.totals.credits_consumed).toBe(records.reduce((n, r) => n + r.credits_consumed, 0));
    expect(a.structured.includes_today).toBe(true);
    expect(a.text).toMatch(/Today's figures are partial/);
  });

  it('breaks down by model with totals per model', async () => {
    const a = await h.call('get_credit_usage', { ...R30, by_model: true, limit: 3 });
    const perModel = Object.values(a.structured.totals.by_model) as number[];
    expect(perModel.reduce((n, c) => n + c, 0)).toBe(a.structured.totals.credits_consumed);
    expect(a.structured.rows.every((r: any) => r.model)).toBe(true);
  });
});
