import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { METRIC_FIELDS } from '../../src/contract/metrics.js';
import { sumDecimals } from '../../src/upstream/numbers.js';
import { harness, truth, truthAll, type Harness } from '../helpers/mcp.js';
import { YESTERDAY } from '../helpers/sim.js';

let h: Harness;
beforeAll(async () => {
  h = await harness({ sim: { users: 400 } });
});
afterAll(() => h.close());

const idOf = (r: any) => r.user_email ?? r.service_account_name;
const R30 = { start_date: '2026-10-22', end_date: YESTERDAY };

describe('get_active_user_counts', () => {
  it('reports the days and a summary that match the upstream, for a named range', async () => {
    const a = await h.call('get_active_user_counts', { range: 'last_30_days' });
    expect(a.isError).toBe(false);
    const days = (await truth(h.sim, 'dau-count', R30)).daily_active_user_counts;
    expect(a.structured.days).toEqual(days);
    const avg = days.reduce((n: number, d: any) => n + d.user_count, 0) / days.length;
    expect(a.structured.summary.average).toBeCloseTo(avg, 1);
    expect(a.structured.summary.peak.user_count).toBe(Math.max(...days.map((d: any) => d.user_count)));
    expect(a.text).toMatch(/Daily active users 2026-10-22\.\.2026-11-20 \(30 days\)/);
    expect(a.text).toMatch(/data through 2026-11-20; next refresh ~02:00 UTC/);
  });

  it('splits a 120-day range and still reports every day', async () => {
    const a = await h.call('get_active_user_counts', { start_date: '2026-07-24', end_date: YESTERDAY });
    expect(a.structured.days).toHaveLength(120);
  });
});

describe('list_active_users', () => {
  it('counts everyone active and lists them alphabetically, limited', async () => {
    const everyone = await truthAll(h.sim, 'dau', 'users', { date: YESTERDAY });
    const a = await h.call('list_active_users', { limit: 5 });
    expect(a.structured.active).toBe(everyone.length);
    expect(a.structured.rows.map((r: any) => r.user)).toEqual(everyone.map(idOf).sort().slice(0, 5));
    expect(a.structured).toMatchObject({ total_rows: everyone.length, returned_rows: 5, truncated: false });
  });

  it('checks named people with `users`', async () => {
    const everyone = await truthAll(h.sim, 'dau', 'users', { date: YESTERDAY });
    const someone = everyone.find((u) => u.user_email).user_email;
    const a = await h.call('list_active_users', { users: [someone.toUpperCase(), 'nobody@northwind.example'] });
    expect(a.structured.rows).toEqual([{ user: someone, kind: 'user' }]);
  });

  it('returns one raw page with a cursor to continue', async () => {
    const first = await h.call('list_active_users', { page_size: 10 });
    expect(first.structured.rows).toHaveLength(10);
    expect(first.structured.next_cursor).toBeTruthy();
    const second = await h.call('list_active_users', { cursor: first.structured.next_cursor, page_size: 10 });
    const all = (await truthAll(h.sim, 'dau', 'users', { date: YESTERDAY })).map(idOf);
    expect(second.structured.rows.map((r: any) => r.user)).toEqual(all.slice(10, 20));
  });
});

describe('get_daily_usage', () => {
  it('returns the chosen metrics per day and exact totals', async () => {
    const a = await h.call('get_daily_usage', { ...R30, metrics: ['total_messages', 'remote_agent_messages'] });
    const days = (await truth(h.sim, 'daily-usage', R30)).daily_usage;
    expect(a.structured.days).toHaveLength(days.length);
    expect(a.structured.totals.total_messages).toBe(days.reduce((n: number, d: any) => n + d.metrics.total_messages, 0));
    expect(Object.keys(a.structured.days[0].values)).toEqual(['total_messages', 'remote_agent_messages']);
    // Zero-valued noise stays out of the text.
    expect(a.text).toMatch(/All zero: remote_agent_messages/);
    expect(a.text.split('\n')[2]).not.toMatch(/remote_agent_messages/);
  });
});

describe('get_user_activity', () => {
  it('sorts by the chosen metric and totals over every user, not only those returned', async () => {
    const a = await h.call('get_user_activity', { range: 'last_30_days', sort_by: 'total_tool_calls', limit: 5 });
    const users = await truthAll(h.sim, 'user-activity', 'users', R30);
    const sorted = [...users].sort((x, y) => y.metrics.total_tool_calls - x.metrics.total_tool_calls);
    expect(a.structured.rows.map((r: any) => r.values.total_tool_calls)).toEqual(sorted.slice(0, 5).map((u) => u.metrics.total_tool_calls));
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

describe('get_editor_language_activity', () => {
  it('grouped by editor, sums to the day and counts distinct users', async () => {
    const a = await h.call('get_editor_language_activity', { group_by: 'editor', metrics: [...METRIC_FIELDS] });
    const day = (await truth(h.sim, 'daily-usage', { start_date: YESTERDAY, end_date: YESTERDAY })).daily_usage[0];
    for (const f of METRIC_FIELDS) expect(a.structured.totals.values[f]).toBe(day.metrics[f]);
    expect(new Set(a.structured.rows.map((r: any) => r.editor))).toEqual(new Set(['VS Code', 'JetBrains', 'CLI', 'Unknown']));
    const dau = (await truth(h.sim, 'dau-count', { start_date: YESTERDAY, end_date: YESTERDAY })).daily_active_user_counts[0].user_count;
    expect(a.structured.totals.users).toBe(dau);
  });

  it('says that one person can use several editors, so the per-editor counts add up to more than the distinct users', async () => {
    const a = await h.call('get_editor_language_activity', { group_by: 'editor' });
    const counted = a.structured.rows.reduce((n: number, r: any) => n + r.users, 0);
    expect(counted).toBeGreaterThan(a.structured.totals.users);
    expect(a.text).toMatch(new RegExp(`${a.structured.totals.users} distinct users`));
    expect(a.text).toContain(`One person can use several editors, so the users per row add up to ${counted}, more than the ${a.structured.totals.users} distinct users.`);
  });

  it.each(['language', 'editor_language', 'user'])('groups by %s', async (group_by) => {
    const a = await h.call('get_editor_language_activity', { group_by, limit: 1000 });
    const keys = a.structured.rows.map((r: any) => `${r.editor ?? ''}|${r.language ?? ''}|${r.user ?? ''}`);
    expect(new Set(keys).size).toBe(keys.length);
  });
});

describe('get_credit_usage', () => {
  it('answers "top 10 by credits over 30 days" with the right people and totals', async () => {
    const a = await h.call('get_credit_usage', { range: 'last_30_days', limit: 10 });
    const range = { start_date: '2026-10-23', end_date: '2026-11-21' };
    const records = await truthAll(h.sim, 'credit-usage-by-user', 'records', range);
    const top = [...records].sort((x, y) => y.credits_consumed - x.credits_consumed || (idOf(x) < idOf(y) ? -1 : 1)).slice(0, 10);
    expect(a.structured.rows.map((r: any) => [r.user, r.credits_consumed])).toEqual(top.map((r) => [idOf(r), r.credits_consumed]));
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

describe('get_cost_analytics', () => {
  it('answers "cost by model last month" with exact totals', async () => {
    const a = await h.call('get_cost_analytics', { range: 'previous_month', group_by: ['resource'] });
    const total = (await truth(h.sim, 'cost-analytics', {}, { start_date: '2026-10-01', end_date: '2026-10-31' })).data_points[0].cost_metrics;
    expect(a.structured.totals.billed_amount_usd).toBe(sumDecimals([total.billed_amount_usd]));
    expect(sumDecimals(a.structured.rows.map((r: any) => r.cost.billed_amount_usd))).toBe(a.structured.totals.billed_amount_usd);
    expect(a.structured.totals.cache_read_tokens).toBe(total.cache_read_tokens);
    expect(a.structured.rows[0].resource).toBeTruthy();
    expect(a.text).toMatch(/billed \$[\d,]+\.\d\d/);
  });

  it('accepts the full group-by names and filters, and groups per day', async () => {
    const users = await truthAll(h.sim, 'user-activity', 'users', R30);
    const email = users.find((u) => u.user_email).user_email;
    const a = await h.call('get_cost_analytics', { ...R30, group_by: ['COST_ANALYTICS_GROUP_BY_USER', 'product'], granularity: 'day', filters: { user_emails: [email] }, limit: 1000 });
    expect(a.isError).toBe(false);
    expect(a.structured.rows.every((r: any) => r.user === email && r.start_date === r.end_date && r.product)).toBe(true);
  });
});

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

describe('get_changelog', () => {
  it('returns a page of entries', async () => {
    const a = await h.call('get_changelog', { client: 'cli', page: 0 });
    expect(a.structured).toMatchObject({ client: 'cli', page: 0, page_size: 10 });
    expect(a.structured.entries.length).toBeGreaterThan(0);
    expect(a.text.split('\n').filter((l) => l.startsWith('- '))).toHaveLength(a.structured.entries.length);
  });
});
