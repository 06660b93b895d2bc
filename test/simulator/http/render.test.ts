import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { METRIC_FIELDS } from '../../../src/contract/metrics.js';
import * as S from '../../helpers/schemas.js';
import { YESTERDAY, addDays, simClient, type SimClient } from '../../helpers/sim.js';

let c: SimClient;
beforeAll(async () => {
  c = await simClient();
});
afterAll(() => c.close());

describe('every endpoint answers with exactly the fields and types of the spec', () => {
  const cases: Array<[string, () => Promise<{ status: number; body: unknown }>, { parse(v: unknown): unknown }]> = [
    ['dau-count', () => c.get('dau-count'), S.dauCount],
    ['dau', () => c.get('dau'), S.dau],
    ['daily-usage', () => c.get('daily-usage'), S.dailyUsage],
    ['user-activity', () => c.get('user-activity'), S.userActivity],
    ['daily-user-activity-by-editor-language', () => c.get('daily-user-activity-by-editor-language'), S.editorLanguage],
    ['credit-usage-by-user', () => c.get('credit-usage-by-user'), S.creditUsage],
    [
      'credit-usage-by-user by_date+by_model',
      () => c.get('credit-usage-by-user', { by_date: true, by_model: true }),
      S.creditUsage,
    ],
    ['cost-analytics, no body', () => c.post('cost-analytics'), S.costAnalytics],
    [
      'cost-analytics, every group key by day',
      () =>
        c.post('cost-analytics', {
          group_by_keys: [
            'COST_ANALYTICS_GROUP_BY_PRODUCT',
            'COST_ANALYTICS_GROUP_BY_RESOURCE',
            'COST_ANALYTICS_GROUP_BY_USER',
            'COST_ANALYTICS_GROUP_BY_BYOK_STATUS',
            'COST_ANALYTICS_GROUP_BY_EXPERT',
          ],
          granularity: 'COST_ANALYTICS_TIME_GRANULARITY_DAY',
        }),
      S.costAnalytics,
    ],
    ['get-user-budget-overrides', () => c.post('get-user-budget-overrides'), S.getOverrides],
    [
      'set-user-budget-overrides',
      () =>
        c.post('set-user-budget-overrides', {
          overrides: [
            {
              service_account_name: 'ci-pipeline',
              resource: 'BUDGET_RESOURCE_CREDITS_CONSUMED',
              period: 'BUDGET_PERIOD_MONTHLY',
              config: { limit: '700' },
            },
          ],
        }),
      S.setOverrides,
    ],
    ['changelog', () => c.get('/api/changelog', {}, null), S.changelog],
  ];
  it.each(cases)('%s', async (_name, call, schema) => {
    const res = await call();
    expect(res.status).toBe(200);
    expect(() => schema.parse(res.body)).not.toThrow();
  });
});

describe('identities and metrics', () => {
  it('gives every record exactly one of user_email or service_account_name, and both kinds occur', async () => {
    const { body } = await c.get('user-activity', {
      page_size: 100,
      start_date: addDays(YESTERDAY, -29),
      end_date: YESTERDAY,
    });
    const all = [...body.users];
    expect(all.every((u: object) => 'user_email' in u !== 'service_account_name' in u)).toBe(true);
    const { body: dau } = await c.get('dau', { page_size: 250 });
    const kinds = new Set(dau.users.map((u: object) => Object.keys(u)[0]));
    expect(kinds).toEqual(new Set(['user_email', 'service_account_name']));
  });

  it('always sends all 16 metric fields as integers', async () => {
    const { body } = await c.get('daily-usage');
    for (const row of body.daily_usage) {
      expect(Object.keys(row.metrics).sort()).toEqual([...METRIC_FIELDS].sort());
      for (const v of Object.values(row.metrics)) expect(Number.isInteger(v)).toBe(true);
    }
  });
});

describe('credit usage dimensions', () => {
  const dims: Array<[boolean, boolean]> = [
    [false, false],
    [true, false],
    [false, true],
    [true, true],
  ];
  it.each(dims)('by_date=%s by_model=%s sends only the requested dimensions', async (byDate, byModel) => {
    const { body } = await c.get('credit-usage-by-user', { by_date: byDate, by_model: byModel, page_size: 500 });
    expect(body.records.length).toBeGreaterThan(0);
    for (const r of body.records) {
      expect('date' in r).toBe(byDate);
      expect('model_name' in r).toBe(byModel);
    }
  });

  it('sums the same whichever dimensions are requested', async () => {
    const range = { start_date: addDays(YESTERDAY, -13), end_date: YESTERDAY, page_size: 500 };
    const totals = [];
    for (const [byDate, byModel] of dims) {
      let sum = 0;
      let cursor: string | undefined;
      do {
        const { body } = await c.get('credit-usage-by-user', {
          ...range,
          by_date: byDate,
          by_model: byModel,
          ...(cursor ? { cursor } : {}),
        });
        sum += body.records.reduce((a: number, r: { credits_consumed: number }) => a + r.credits_consumed, 0);
        cursor = body.pagination.has_more ? body.pagination.next_cursor : undefined;
      } while (cursor);
      totals.push(sum);
    }
    expect(new Set(totals).size).toBe(1);
    expect(totals[0]).toBeGreaterThan(0);
  });

  it('omits identities without credits', async () => {
    const { body } = await c.get('credit-usage-by-user', { page_size: 500 });
    expect(body.records.every((r: { credits_consumed: number }) => r.credits_consumed > 0)).toBe(true);
  });
});

describe('cost analytics values', () => {
  it('sends amounts as decimal strings and the group fields of each requested key only', async () => {
    const { body } = await c.post('cost-analytics', { group_by_keys: ['COST_ANALYTICS_GROUP_BY_RESOURCE'] });
    for (const p of body.data_points) {
      expect(Object.keys(p.group_by_values).sort()).toEqual(['resource_display_name', 'resource_type']);
      expect(typeof p.cost_metrics.billed_amount_usd).toBe('string');
    }
    const types = new Set(body.data_points.map((p: any) => p.group_by_values.resource_type));
    expect(types).toEqual(new Set(['COST_ANALYTICS_RESOURCE_TYPE_MODEL', 'COST_ANALYTICS_RESOURCE_TYPE_COMPUTE']));
  });

  it('without group keys answers one aggregate total over the range', async () => {
    const { body } = await c.post('cost-analytics', {});
    expect(body.data_points).toHaveLength(1);
    expect(body.data_points[0].group_by_values).toEqual({});
    expect(body.data_points[0]).toMatchObject({
      start_date: body.metadata.effective_start_date,
      end_date: body.metadata.effective_end_date,
    });
  });

  it('holds a token count above 2^53-1, sent as a string, on the 1st of a month', async () => {
    const { body } = await c.post('cost-analytics', { start_date: '2026-11-01', end_date: '2026-11-01' });
    const value = body.data_points[0].cost_metrics.cache_read_tokens;
    expect(typeof value).toBe('string');
    expect(BigInt(value) > BigInt(Number.MAX_SAFE_INTEGER)).toBe(true);
    const { body: other } = await c.post('cost-analytics', { start_date: '2026-11-02', end_date: '2026-11-02' });
    expect(typeof other.data_points[0].cost_metrics.cache_read_tokens).toBe('number');
  });

  it('follows the spec on customer-key usage: surcharge is the whole bill, the estimate adds the base cost', async () => {
    const { body } = await c.post('cost-analytics', {
      start_date: addDays(YESTERDAY, -29),
      end_date: YESTERDAY,
      group_by_keys: ['COST_ANALYTICS_GROUP_BY_BYOK_STATUS'],
    });
    const byStatus = Object.fromEntries(
      body.data_points.map((p: any) => [p.group_by_values.byok_status, p.cost_metrics]),
    );
    const cents = (s: string) => BigInt(s.replace('.', '').padEnd(s.indexOf('.') + 7, '0'));
    const byok = byStatus.COST_ANALYTICS_BYOK_STATUS_BYOK;
    const own = byStatus.COST_ANALYTICS_BYOK_STATUS_NON_BYOK;
    expect(byok && own).toBeTruthy();
    expect(byok.surcharge_usd).toBe(byok.billed_amount_usd);
    expect(cents(byok.estimated_customer_cost_usd)).toBe(cents(byok.base_cost_usd) + cents(byok.surcharge_usd));
    expect(own.estimated_customer_cost_usd).toBe(own.billed_amount_usd);
    expect(cents(own.surcharge_usd)).toBe(cents(own.billed_amount_usd) - cents(own.base_cost_usd));
  });

  it('reports bots, service accounts, users and deleted accounts when grouped by user', async () => {
    const { body } = await c.post('cost-analytics', {
      start_date: addDays(YESTERDAY, -89),
      end_date: YESTERDAY,
      group_by_keys: ['COST_ANALYTICS_GROUP_BY_USER'],
      page_size: 1000,
    });
    const infos = body.data_points.map((p: any) => p.group_by_values.user_info);
    expect(infos.some((u: any) => u.user_type === 'COST_ANALYTICS_USER_TYPE_BOT' && u.bot_name)).toBe(true);
    expect(
      infos.some((u: any) => u.user_type === 'COST_ANALYTICS_USER_TYPE_SERVICE_ACCOUNT' && u.service_account_name),
    ).toBe(true);
    expect(infos.some((u: any) => u.user_type === 'COST_ANALYTICS_USER_TYPE_USER' && u.user_email)).toBe(true);
    expect(infos.some((u: any) => Object.keys(u).length === 1)).toBe(true);
  });
});

describe('metadata counts mean what the spec says', () => {
  it('dau-count total_days counts the days in the range', async () => {
    const { body } = await c.get('dau-count', { start_date: '2026-10-01', end_date: '2026-10-10' });
    expect(body.metadata.total_days).toBe(10);
    expect(body.daily_active_user_counts).toHaveLength(10);
  });

  it('daily-usage total_days counts the days with data in the response', async () => {
    const { body } = await c.get('daily-usage', { start_date: '2026-10-01', end_date: '2026-10-10' });
    expect(body.metadata.total_days).toBe(body.daily_usage.length);
  });

  it('daily-usage omits days without activity, which dau-count reports as zero', async () => {
    // An organization anchored in 2029 was founded three years earlier, in mid-2026: May 2026 is empty.
    const sim = await simClient({ users: 50, anchorDate: '2029-06-01' });
    try {
      const range = { start_date: '2026-05-20', end_date: '2026-06-30' };
      const usage = await sim.get('daily-usage', range);
      const counts = await sim.get('dau-count', range);
      const zeroDays = counts.body.daily_active_user_counts
        .filter((d: { user_count: number }) => d.user_count === 0)
        .map((d: { date: string }) => d.date);
      expect(zeroDays.length).toBeGreaterThan(5);
      expect(usage.body.daily_usage.length).toBe(42 - zeroDays.length);
      expect(usage.body.daily_usage.some((d: { date: string }) => zeroDays.includes(d.date))).toBe(false);
      expect(usage.body.metadata.total_days).toBe(usage.body.daily_usage.length);
    } finally {
      await sim.close();
    }
  });

  it('user-activity total_days is the queried range; returned_user_count the users in this page', async () => {
    const { body } = await c.get('user-activity', { start_date: '2026-10-01', end_date: '2026-10-30', page_size: 7 });
    expect(body.metadata.total_days).toBe(30);
    expect(body.metadata.returned_user_count).toBe(7);
    expect(body.users).toHaveLength(7);
  });

  it.each([
    ['dau', 'users', 'returned_user_count'],
    ['daily-user-activity-by-editor-language', 'records', 'returned_record_count'],
    ['credit-usage-by-user', 'records', 'returned_record_count'],
  ])('%s counts the records in this page', async (path, key, count) => {
    const { body } = await c.get(path, { page_size: 9 });
    expect(body.metadata[count]).toBe(9);
    expect(body[key]).toHaveLength(9);
  });

  it('cost-analytics returned_data_point_count counts the points in this page', async () => {
    const { body } = await c.post('cost-analytics', { group_by_keys: ['COST_ANALYTICS_GROUP_BY_USER'], page_size: 5 });
    expect(body.metadata.returned_data_point_count).toBe(5);
    expect(body.data_points).toHaveLength(5);
  });
});
