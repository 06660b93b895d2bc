import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROUTES } from '../../../src/simulator/http/routes.js';
import { YESTERDAY, addDays, allPages, simClient, type SimClient } from '../../helpers/sim.js';

let c: SimClient;
beforeAll(async () => {
  c = await simClient({ users: 1200 });
});
afterAll(() => c.close());

const listKey: Record<string, string> = {
  dau: 'users',
  'user-activity': 'users',
  'daily-user-activity-by-editor-language': 'records',
  'credit-usage-by-user': 'records',
};
const limits: Array<[string, number, number]> = [
  ['dau', 100, 250],
  ['user-activity', 50, 100],
  ['daily-user-activity-by-editor-language', 50, 100],
  ['credit-usage-by-user', 100, 500],
];
const costQuery = {
  start_date: addDays(YESTERDAY, -29),
  end_date: YESTERDAY,
  group_by_keys: ['COST_ANALYTICS_GROUP_BY_USER'],
  granularity: 'COST_ANALYTICS_TIME_GRANULARITY_DAY',
};

describe('page_size defaults and maxima', () => {
  it.each(limits)('%s: default %i, maximum %i', async (path, def, max) => {
    expect(ROUTES[`/analytics/v0/${path}`]!.pages).toEqual({ default: def, max });
    const query: Record<string, string> = path === 'credit-usage-by-user' ? { by_date: 'true', by_model: 'true' } : {};
    const items = (res: any) => res.body[listKey[path]!].length;
    expect(items(await c.get(path, query))).toBe(def);
    expect(items(await c.get(path, { ...query, page_size: max }))).toBe(max);
    expect(items(await c.get(path, { ...query, page_size: max + 1 }))).toBe(max);
    expect(items(await c.get(path, { ...query, page_size: 100_000 }))).toBe(max);
    expect(items(await c.get(path, { ...query, page_size: 1 }))).toBe(1);
  });

  it('cost-analytics: default 100, maximum 1000', async () => {
    expect((await c.post('cost-analytics', costQuery)).body.data_points).toHaveLength(100);
    expect((await c.post('cost-analytics', { ...costQuery, page_size: 1000 })).body.data_points).toHaveLength(1000);
    expect((await c.post('cost-analytics', { ...costQuery, page_size: 5000 })).body.data_points).toHaveLength(1000);
  });

  const bad = ['0', '-1', 'abc', '2.5', ''];
  it.each(limits.flatMap(([path]) => bad.map((v) => [path, v])))('%s rejects page_size=%j', async (path, value) => {
    const res = await c.get(path, { page_size: value });
    expect(res.status).toBe(400);
    expect(res.body.error.message).toMatch(/page_size/);
  });

  it.each([0, -3, 1.5, '10', null])('cost-analytics rejects page_size %j', async (value) => {
    const res = await c.post('cost-analytics', { page_size: value });
    expect(res.status).toBe(400);
    expect(res.body.error.message).toMatch(/page_size/);
  });
});

describe('cursors', () => {
  it('are opaque strings, empty on the last page', async () => {
    const first = await c.get('dau', { page_size: 5 });
    expect(first.body.pagination.has_more).toBe(true);
    expect(first.body.pagination.next_cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(first.body.pagination.next_cursor).not.toMatch(/offset|page|\d{3,}/);
    const pages = await allPages(c, 'dau', { page_size: 250 });
    expect(pages.at(-1)!.body.pagination).toEqual({ next_cursor: '', has_more: false });
  });

  it.each([
    ['garbage', 'not-a-cursor'],
    ['tampered', 'djEuZmZmZmZmZmZmZmZmZmZmZi4xMDAuYWJj'],
  ])('refuses a %s cursor', async (_name, cursor) => {
    const res = await c.get('dau', { cursor });
    expect(res.status).toBe(400);
    expect(res.body.error.message).toMatch(/cursor is not valid/);
  });

  it('refuses a cursor sent with different parameters', async () => {
    const first = await c.get('user-activity', { start_date: '2026-10-01', end_date: '2026-10-07' });
    const res = await c.get('user-activity', {
      start_date: '2026-10-02',
      end_date: '2026-10-07',
      cursor: first.body.pagination.next_cursor,
    });
    expect(res.status).toBe(400);
    expect(res.body.error.message).toMatch(/different query/);
  });

  it('lets page_size change between pages without skipping or repeating', async () => {
    const first = await c.get('dau', { page_size: 7 });
    const second = await c.get('dau', { page_size: 3, cursor: first.body.pagination.next_cursor });
    const whole = await c.get('dau', { page_size: 10 });
    expect([...first.body.users, ...second.body.users]).toEqual(whole.body.users);
  });

  it('pages cost-analytics through the body cursor, an empty cursor meaning the first page', async () => {
    const first = await c.post('cost-analytics', { ...costQuery, cursor: '', page_size: 40 });
    const second = await c.post('cost-analytics', {
      ...costQuery,
      cursor: first.body.pagination.next_cursor,
      page_size: 40,
    });
    const whole = await c.post('cost-analytics', { ...costQuery, page_size: 80 });
    expect([...first.body.data_points, ...second.body.data_points]).toEqual(whole.body.data_points);
  });
});

describe('paging through everything', () => {
  it.each(limits)('%s returns every record exactly once, in a stable order', async (path, _def, max) => {
    const query: Record<string, string | number> =
      path === 'credit-usage-by-user' ? { by_date: 'true', page_size: max } : { page_size: max };
    const pages = await allPages(c, path, query);
    const records = pages.flatMap((p) => p.body[listKey[path]!]);
    const keys = records.map((r: any) =>
      JSON.stringify([r.user_email ?? r.service_account_name, r.date, r.editor, r.language]),
    );
    expect(new Set(keys).size).toBe(records.length);
    const once = await allPages(c, path, { ...query, page_size: Math.floor(max / 3) });
    expect(once.flatMap((p) => p.body[listKey[path]!])).toEqual(records);
  });
});

describe('a 10,000-user organization', () => {
  let big: SimClient;
  beforeAll(async () => {
    big = await simClient({ users: 10_000 });
  });
  afterAll(() => big.close());

  it('pages every active user of a 90-day range once, with totals that match the daily figures', async () => {
    const range = { start_date: addDays(YESTERDAY, -89), end_date: YESTERDAY };
    const pages = await allPages(big, 'user-activity', { ...range, page_size: 100 });
    const users = pages.flatMap((p) => p.body.users);
    const ids = users.map((u: any) => u.user_email ?? u.service_account_name);
    expect(new Set(ids).size).toBe(ids.length);
    expect(users.length).toBeGreaterThan(8_000);
    const daily = (await big.get('daily-usage', range)).body.daily_usage;
    const sum = (rows: any[], f: string) => rows.reduce((a, r) => a + r.metrics[f], 0);
    expect(sum(users, 'total_messages')).toBe(sum(daily, 'total_messages'));
    const counts = (await big.get('dau-count', range)).body.daily_active_user_counts;
    expect(users.reduce((a: number, u: any) => a + u.active_days, 0)).toBe(
      counts.reduce((a: number, d: any) => a + d.user_count, 0),
    );
  });

  it('pages the daily active users of one day to the dau-count figure', async () => {
    const pages = await allPages(big, 'dau', { date: YESTERDAY, page_size: 250 });
    const users = pages.flatMap((p) => p.body.users);
    const count = (await big.get('dau-count', { start_date: YESTERDAY, end_date: YESTERDAY })).body
      .daily_active_user_counts[0].user_count;
    expect(users).toHaveLength(count);
    expect(count).toBeGreaterThan(5_000);
  });
});
