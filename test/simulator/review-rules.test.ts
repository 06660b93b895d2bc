import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { YESTERDAY, addDays, allPages, simClient, type SimClient } from '../helpers/sim.js';

let c: SimClient;
beforeAll(async () => {
  c = await simClient({ users: 400 });
});
afterAll(() => c.close());

const idOf = (r: any) => r.user_email ?? r.service_account_name;
const RANGE = { start_date: addDays(YESTERDAY, -13), end_date: YESTERDAY };

describe('publication at about 02:00 UTC', () => {
  it('reads yesterday as empty before 02:00 UTC and complete after', async () => {
    const sim = await simClient({ users: 100, now: '2026-11-21T01:59:00Z' });
    try {
      const day = { start_date: '2026-11-20', end_date: '2026-11-20' };
      expect((await sim.get('dau-count', day)).body.daily_active_user_counts).toEqual([{ date: '2026-11-20', user_count: 0 }]);
      expect((await sim.get('daily-usage', day)).body.daily_usage).toEqual([]);
      expect((await sim.get('dau')).body.users).toEqual([]);
      expect((await sim.post('cost-analytics', day)).body.data_points).toEqual([]);
      sim.sim.configure({ now: '2026-11-21T02:00:00Z' });
      expect((await sim.get('dau-count', day)).body.daily_active_user_counts[0].user_count).toBeGreaterThan(0);
      expect((await sim.get('dau')).body.users.length).toBeGreaterThan(0);
      expect((await sim.post('cost-analytics', day)).body.data_points).toHaveLength(1);
    } finally {
      await sim.close();
    }
  });
});

describe('cursors over a credit-usage refresh', () => {
  it('keep serving the snapshot of the first page: nothing repeated, nothing skipped', async () => {
    const sim = await simClient({ users: 300, now: '2026-11-21T01:31:00Z' });
    try {
      const today = { start_date: '2026-11-21', end_date: '2026-11-21', page_size: 24 };
      const first = await sim.get('credit-usage-by-user', today);
      const whole = (await allPages(sim, 'credit-usage-by-user', { ...today, page_size: 500 })).flatMap((p) => p.body.records);
      sim.sim.configure({ now: '2026-11-21T04:31:00Z' });
      const rest = [];
      let cursor = first.body.pagination.next_cursor;
      while (cursor) {
        const page = await sim.get('credit-usage-by-user', { ...today, cursor });
        rest.push(...page.body.records);
        cursor = page.body.pagination.has_more ? page.body.pagination.next_cursor : '';
      }
      expect([...first.body.records, ...rest]).toEqual(whole);
      const fresh = (await allPages(sim, 'credit-usage-by-user', { ...today, page_size: 500 })).flatMap((p) => p.body.records);
      expect(fresh).not.toEqual(whole);
    } finally {
      await sim.close();
    }
  });
});

describe('rate-limit buckets belong to the token', () => {
  it('are not reset by spelling the Authorization header differently', async () => {
    const sim = await simClient({ users: 10, rateLimit: true });
    try {
      for (let i = 0; i < 20; i++) expect((await sim.get('dau')).status).toBe(200);
      for (const header of ['bearer rw-token', 'Bearer  rw-token', 'BEARER rw-token ']) {
        const res = await fetch(new URL('/analytics/v0/dau', sim.sim.url), { headers: { authorization: header } });
        expect(res.status).toBe(429);
      }
    } finally {
      await sim.close();
    }
  });
});

describe('cost-analytics filters', () => {
  const byUser = { ...RANGE, group_by_keys: ['COST_ANALYTICS_GROUP_BY_USER'], page_size: 1000 };
  const users = async (filters: object) => (await c.post('cost-analytics', { ...byUser, filters })).body.data_points.map((p: any) => p.group_by_values.user_info);

  it('matches emails case-insensitively and service accounts exactly, as a union', async () => {
    const all = await users({});
    const email = all.find((u: any) => u.user_email).user_email as string;
    expect((await users({ user_emails: [email.toUpperCase()] })).map((u: any) => u.user_email)).toEqual([email]);
    expect(await users({ service_account_names: ['CI-PIPELINE'] })).toEqual([]);
    const union = await users({ user_emails: [email], service_account_names: ['ci-pipeline'] });
    expect(union.map((u: any) => u.user_email ?? u.service_account_name).sort()).toEqual([email, 'ci-pipeline'].sort());
  });

  it.each([
    ['product_names', ['IDE Agent'], 'COST_ANALYTICS_GROUP_BY_PRODUCT', (v: any) => v.product_display_name],
    ['resource_names', ['gpt-5'], 'COST_ANALYTICS_GROUP_BY_RESOURCE', (v: any) => v.resource_display_name],
    ['expert_ids', ['exp-test-author'], 'COST_ANALYTICS_GROUP_BY_EXPERT', (v: any) => v.expert_info.expert_id],
  ])('restricts by %s', async (field, values, key, pick) => {
    const { body } = await c.post('cost-analytics', { ...RANGE, group_by_keys: [key], filters: { [field]: values } });
    expect(body.data_points.map((p: any) => pick(p.group_by_values))).toEqual(values);
  });

  it('combines filters of different kinds as an intersection', async () => {
    const { body } = await c.post('cost-analytics', { ...RANGE, group_by_keys: ['COST_ANALYTICS_GROUP_BY_PRODUCT', 'COST_ANALYTICS_GROUP_BY_RESOURCE'], filters: { product_names: ['Chat'], resource_names: ['claude-sonnet-4-5'] } });
    expect(body.data_points.map((p: any) => [p.group_by_values.product_display_name, p.group_by_values.resource_display_name])).toEqual([['Chat', 'claude-sonnet-4-5']]);
  });
});

describe('cost-analytics grouping and granularity', () => {
  it('by day: one point per day and group, each covering exactly its day, all days of the range', async () => {
    const { body } = await c.post('cost-analytics', { ...RANGE, group_by_keys: ['COST_ANALYTICS_GROUP_BY_BYOK_STATUS'], granularity: 'COST_ANALYTICS_TIME_GRANULARITY_DAY' });
    expect(body.data_points.every((p: any) => p.start_date === p.end_date)).toBe(true);
    expect(new Set(body.data_points.map((p: any) => p.start_date)).size).toBe(14);
    const keys = body.data_points.map((p: any) => `${p.start_date}|${p.group_by_values.byok_status}`);
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('several keys combine: every point carries the fields of every requested key', async () => {
    const { body } = await c.post('cost-analytics', { ...RANGE, group_by_keys: ['COST_ANALYTICS_GROUP_BY_PRODUCT', 'COST_ANALYTICS_GROUP_BY_USER', 'COST_ANALYTICS_GROUP_BY_EXPERT'], page_size: 200 });
    for (const p of body.data_points) expect(Object.keys(p.group_by_values).sort()).toEqual(['expert_info', 'product_display_name', 'user_info']);
  });

  it('the grouped totals add up to the ungrouped total', async () => {
    const total = (await c.post('cost-analytics', RANGE)).body.data_points[0].cost_metrics.credits_consumed;
    const grouped = (await c.post('cost-analytics', { ...RANGE, group_by_keys: ['COST_ANALYTICS_GROUP_BY_PRODUCT'] })).body.data_points;
    const cents = grouped.reduce((a: bigint, p: any) => a + BigInt(p.cost_metrics.credits_consumed.replace('.', '')), 0n);
    expect(cents).toBe(BigInt(total.replace('.', '')));
  });
});

describe('credit-usage rows', () => {
  it('are unique per (identity, date, model) with both dimensions', async () => {
    const records = (await allPages(c, 'credit-usage-by-user', { ...RANGE, by_date: true, by_model: true, page_size: 500 })).flatMap((p) => p.body.records);
    const keys = records.map((r: any) => `${idOf(r)}|${r.date}|${r.model_name}`);
    expect(new Set(keys).size).toBe(keys.length);
    expect(new Set(records.map((r: any) => r.model_name)).size).toBeGreaterThan(2);
  });
});

describe('edges', () => {
  it('parses years below 100 like any other (credit usage has no lookback)', async () => {
    const res = await c.get('credit-usage-by-user', { start_date: '0050-01-01', end_date: '0050-01-07' });
    expect(res.status).toBe(200);
    expect(res.body.metadata.effective_start_date).toBe('0050-01-01');
  });

  it('answers a wrong method on the changelog in the changelog error shape', async () => {
    const res = await c.post('/api/changelog', {}, null);
    expect(res.status).toBe(405);
    expect(res.body).toMatchObject({ success: false, code: 'METHOD_NOT_ALLOWED' });
  });

  it('refuses an oversized body with 413 and keeps serving', async () => {
    const res = await c.post('cost-analytics', undefined, undefined, `{"x":"${'a'.repeat(17 * 1024 * 1024)}"}`).catch(() => ({ status: 413 }));
    expect(res.status).toBe(413);
    expect((await c.get('dau')).status).toBe(200);
  });
});
