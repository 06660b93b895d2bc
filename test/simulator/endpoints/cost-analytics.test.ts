import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { YESTERDAY, addDays, simClient, type SimClient } from '../../helpers/sim.js';

let c: SimClient;
beforeAll(async () => {
  c = await simClient({ users: 400 });
});
afterAll(() => c.close());

const RANGE = { start_date: addDays(YESTERDAY, -13), end_date: YESTERDAY };

describe('cost-analytics filters', () => {
  const byUser = { ...RANGE, group_by_keys: ['COST_ANALYTICS_GROUP_BY_USER'], page_size: 1000 };
  const users = async (filters: object) =>
    (await c.post('cost-analytics', { ...byUser, filters })).body.data_points.map(
      (p: any) => p.group_by_values.user_info,
    );

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
    const { body } = await c.post('cost-analytics', {
      ...RANGE,
      group_by_keys: ['COST_ANALYTICS_GROUP_BY_PRODUCT', 'COST_ANALYTICS_GROUP_BY_RESOURCE'],
      filters: { product_names: ['Chat'], resource_names: ['claude-sonnet-4-5'] },
    });
    expect(
      body.data_points.map((p: any) => [
        p.group_by_values.product_display_name,
        p.group_by_values.resource_display_name,
      ]),
    ).toEqual([['Chat', 'claude-sonnet-4-5']]);
  });
});

describe('cost-analytics grouping and granularity', () => {
  it('by day: one point per day and group, each covering exactly its day, all days of the range', async () => {
    const { body } = await c.post('cost-analytics', {
      ...RANGE,
      group_by_keys: ['COST_ANALYTICS_GROUP_BY_BYOK_STATUS'],
      granularity: 'COST_ANALYTICS_TIME_GRANULARITY_DAY',
    });
    expect(body.data_points.every((p: any) => p.start_date === p.end_date)).toBe(true);
    expect(new Set(body.data_points.map((p: any) => p.start_date)).size).toBe(14);
    const keys = body.data_points.map((p: any) => `${p.start_date}|${p.group_by_values.byok_status}`);
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('several keys combine: every point carries the fields of every requested key', async () => {
    const { body } = await c.post('cost-analytics', {
      ...RANGE,
      group_by_keys: [
        'COST_ANALYTICS_GROUP_BY_PRODUCT',
        'COST_ANALYTICS_GROUP_BY_USER',
        'COST_ANALYTICS_GROUP_BY_EXPERT',
      ],
      page_size: 200,
    });
    for (const p of body.data_points)
      expect(Object.keys(p.group_by_values).sort()).toEqual(['expert_info', 'product_display_name', 'user_info']);
  });

  it('the grouped totals add up to the ungrouped total', async () => {
    const total = (await c.post('cost-analytics', RANGE)).body.data_points[0].cost_metrics.credits_consumed;
    const grouped = (await c.post('cost-analytics', { ...RANGE, group_by_keys: ['COST_ANALYTICS_GROUP_BY_PRODUCT'] }))
      .body.data_points;
    const cents = grouped.reduce(
      (a: bigint, p: any) => a + BigInt(p.cost_metrics.credits_consumed.replace('.', '')),
      0n,
    );
    expect(cents).toBe(BigInt(total.replace('.', '')));
  });
});
