import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { harness, type Harness } from '../helpers/mcp.js';

let h: Harness;
beforeAll(async () => {
  h = await harness({ sim: { users: 50 } });
});
afterAll(() => h.close());
afterEach(() => h.sim.clearFaults());

describe('every failure is a tool result with a next step, never a crash or a protocol error', () => {
  const cases: Array<[string, string, Record<string, unknown>, RegExp, (() => void)?]> = [
    [
      'a date that is today',
      'get_daily_usage',
      { end_date: '2026-11-21' },
      /end_date 2026-11-21 is today; the latest complete day is 2026-11-20 \(UTC\).*Change the arguments/s,
    ],
    ['a malformed date', 'get_active_user_counts', { start_date: '21/11/2026' }, /use YYYY-MM-DD/],
    [
      'an unknown range name',
      'get_user_activity',
      { range: 'last_week' },
      /range: Invalid option: expected one of "last_7_days".*Change the arguments and call again/s,
    ],
    [
      'a sort field that does not exist',
      'get_user_activity',
      { sort_by: 'happiness' },
      /use active_days or a metric field name/,
    ],
    [
      'a bad group-by key',
      'get_cost_analytics',
      { group_by: ['region'] },
      /use product, resource, user, byok_status, expert/,
    ],
    ['a cost range with one date', 'get_cost_analytics', { start_date: '2026-11-01' }, /both start_date and end_date/],
    [
      'a raw page over 90 days',
      'get_user_activity',
      { range: 'year_to_date', page_size: 10 },
      /One raw page covers at most 90 days/,
    ],
    ['beyond the lookback', 'list_active_users', { date: '2023-01-01' }, /earliest day you can ask for is 2024-11-21/],
    [
      'an upstream outage',
      'get_daily_usage',
      {},
      /unavailable: daily-usage failed upstream \(503\).*It was retried 2 times already\. Try again in a minute\./s,
      () => h.sim.injectFault({ path: '*', kind: '503', count: 3 }),
    ],
    [
      'a malformed upstream answer',
      'get_active_user_counts',
      {},
      /does not understand.*not valid JSON/s,
      () => h.sim.injectFault({ path: '*', kind: 'malformed' }),
    ],
    [
      'a rate-limit block',
      'get_credit_usage',
      { range: 'last_90_days' },
      /rate limit is exhausted\. Try again after \d\d:\d\d:\d\d UTC \(about \d+ s\)/,
      () => h.sim.injectFault({ path: '*', kind: '429', count: 5, retryAfterSeconds: 0 }),
    ],
  ];
  it.each(cases)('%s', async (_name, tool, args, message, arrange) => {
    arrange?.();
    const r = await h.call(tool, args);
    expect(r.isError).toBe(true);
    expect(r.text).toMatch(message);
  });

  it('names the variable to set when the token is rejected', async () => {
    const bad = await harness({ sim: { users: 10 }, config: { token: 'wrong' } });
    try {
      const r = await bad.call('get_daily_usage', {});
      expect(r.isError).toBe(true);
      expect(r.text).toMatch(/Set ANALYTICS_API_TOKEN to a valid service-account token/);
      // A shared server takes each tenant's token from the variable its tenants file names.
      expect(r.text).toMatch(/--tenants-file, the variable named by the tenant's token_env/);
    } finally {
      await bad.close();
    }
  });

  it('keeps serving after failures', async () => {
    h.sim.injectFault({ path: '*', kind: 'reset', count: 3 });
    expect((await h.call('get_daily_usage', {})).isError).toBe(true);
    expect((await h.call('get_daily_usage', {})).isError).toBe(false);
  });

  it('answers an unknown tool with a protocol error, which is a protocol problem', async () => {
    await expect(h.mcp.callTool({ name: 'drop_tables', arguments: {} })).rejects.toThrow(/not found/);
  });
});
