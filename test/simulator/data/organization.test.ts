import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { METRIC_FIELDS } from '../../../src/contract/metrics.js';
import { YESTERDAY, addDays, allPages, simClient, type SimClient } from '../../helpers/sim.js';

let c: SimClient;
beforeAll(async () => {
  c = await simClient({ users: 600 });
});
afterAll(() => c.close());

const idOf = (r: any) => r.user_email ?? r.service_account_name;
const RANGE = { start_date: addDays(YESTERDAY, -27), end_date: YESTERDAY };

describe('a synthetic organization that looks real', () => {
  it('has the configured number of users plus several service accounts', async () => {
    const ids = c.sim.state.org.identities;
    expect(ids.filter((i) => i.kind === 'user')).toHaveLength(600);
    expect(ids.filter((i) => i.kind === 'service_account').length).toBeGreaterThanOrEqual(5);
    expect(new Set(ids.map((i) => i.id.toLowerCase())).size).toBe(ids.length);
  });

  it('uses VS Code, JetBrains, CLI and Unknown editors, and many languages', async () => {
    const pages = await allPages(c, 'daily-user-activity-by-editor-language', { page_size: 100 });
    const records = pages.flatMap((p) => p.body.records);
    expect(new Set(records.map((r: any) => r.editor))).toEqual(new Set(['VS Code', 'JetBrains', 'CLI', 'Unknown']));
    expect(new Set(records.map((r: any) => r.language)).size).toBeGreaterThanOrEqual(8);
  });

  it('uses several models, products, experts, and both customer-key and provider usage', async () => {
    const { body } = await c.post('cost-analytics', {
      ...RANGE,
      group_by_keys: [
        'COST_ANALYTICS_GROUP_BY_PRODUCT',
        'COST_ANALYTICS_GROUP_BY_RESOURCE',
        'COST_ANALYTICS_GROUP_BY_BYOK_STATUS',
        'COST_ANALYTICS_GROUP_BY_EXPERT',
      ],
      page_size: 1000,
    });
    const values = body.data_points.map((p: any) => p.group_by_values);
    expect(new Set(values.map((v: any) => v.resource_display_name)).size).toBeGreaterThanOrEqual(5);
    expect(new Set(values.map((v: any) => v.product_display_name)).size).toBeGreaterThanOrEqual(4);
    expect(new Set(values.map((v: any) => v.byok_status)).size).toBe(2);
    expect(new Set(values.map((v: any) => v.expert_info.expert_id).filter(Boolean)).size).toBeGreaterThanOrEqual(3);
  });

  it('is quieter at weekends', async () => {
    const { body } = await c.get('dau-count', RANGE);
    const isWeekend = (d: string) => [0, 6].includes(new Date(`${d}T00:00:00Z`).getUTCDay());
    const mean = (rows: any[]) => rows.reduce((a, r) => a + r.user_count, 0) / rows.length;
    const rows = body.daily_active_user_counts;
    expect(mean(rows.filter((r: any) => isWeekend(r.date)))).toBeLessThan(
      0.5 * mean(rows.filter((r: any) => !isWeekend(r.date))),
    );
  });

  it('keeps remote agent metrics to historical data only', async () => {
    const recent = await c.get('daily-usage', RANGE);
    expect(recent.body.daily_usage.every((d: any) => d.metrics.remote_agent_messages === 0)).toBe(true);
    const old = await c.get('daily-usage', { start_date: '2025-01-01', end_date: '2025-01-31' });
    expect(old.body.daily_usage.some((d: any) => d.metrics.remote_agent_messages > 0)).toBe(true);
  });

  it('is deterministic from its seed', async () => {
    const same = await simClient({ users: 600 });
    const other = await simClient({ users: 600, seed: 'another' });
    try {
      const a = await c.get('user-activity', RANGE);
      expect((await same.get('user-activity', RANGE)).body.users).toEqual(a.body.users);
      expect((await other.get('user-activity', RANGE)).body.users).not.toEqual(a.body.users);
      const cost = { ...RANGE, group_by_keys: ['COST_ANALYTICS_GROUP_BY_USER'] };
      expect((await same.post('cost-analytics', cost)).body.data_points).toEqual(
        (await c.post('cost-analytics', cost)).body.data_points,
      );
    } finally {
      await Promise.all([same.close(), other.close()]);
    }
  });
});

describe('planted cases of adoption, relative to the anchor day', () => {
  it('has a cohort that joined together 10 days ago, and long-time members who left in the last weeks', async () => {
    const { anchorDay, identities } = c.sim.state.org;
    const users = identities.filter((i) => i.kind === 'user');
    const cohort = users.filter((i) => i.joinDay === anchorDay - 10);
    expect(cohort.length).toBeGreaterThanOrEqual(15);
    const leavers = users.filter((i) => i.leaveDay <= anchorDay - 7 && i.leaveDay > anchorDay - 60);
    expect(leavers.length).toBeGreaterThanOrEqual(8);
    // They show in the API: the cohort is active only from its day on, the leavers were active before theirs.
    const before = await allPages(c, 'user-activity', {
      start_date: addDays(YESTERDAY, -60),
      end_date: addDays(YESTERDAY, -12),
      page_size: 100,
    });
    const earlier = new Set(before.flatMap((p) => p.body.users.map(idOf)));
    for (const i of cohort) expect(earlier.has(i.id), i.id).toBe(false);
    expect(leavers.filter((i) => earlier.has(i.id)).length).toBeGreaterThanOrEqual(leavers.length / 2);
  });
});

describe('one consistent story across endpoints', () => {
  it('dau lists as many identities as dau-count counts, and they are the active ones of user-activity', async () => {
    const day = addDays(YESTERDAY, -3);
    const users = (await allPages(c, 'dau', { date: day, page_size: 250 })).flatMap((p) => p.body.users).map(idOf);
    const count = (await c.get('dau-count', { start_date: day, end_date: day })).body.daily_active_user_counts[0]
      .user_count;
    expect(users).toHaveLength(count);
    const activity = (await allPages(c, 'user-activity', { start_date: day, end_date: day, page_size: 100 })).flatMap(
      (p) => p.body.users,
    );
    expect(activity.map(idOf)).toEqual(users);
  });

  it("editor/language records add up to each identity's daily metrics", async () => {
    const day = addDays(YESTERDAY, -1);
    const records = (
      await allPages(c, 'daily-user-activity-by-editor-language', { date: day, page_size: 100 })
    ).flatMap((p) => p.body.records);
    const users = (await allPages(c, 'user-activity', { start_date: day, end_date: day, page_size: 100 })).flatMap(
      (p) => p.body.users,
    );
    for (const user of users.slice(0, 150)) {
      const mine = records.filter((r: any) => idOf(r) === idOf(user));
      expect(mine.length).toBeGreaterThan(0);
      for (const f of METRIC_FIELDS)
        expect(mine.reduce((a: number, r: any) => a + r.metrics[f], 0)).toBe(user.metrics[f]);
    }
  });

  it('daily-usage is the sum of user-activity over the same day', async () => {
    const day = addDays(YESTERDAY, -5);
    const users = (await allPages(c, 'user-activity', { start_date: day, end_date: day, page_size: 100 })).flatMap(
      (p) => p.body.users,
    );
    const daily = (await c.get('daily-usage', { start_date: day, end_date: day })).body.daily_usage[0];
    for (const f of METRIC_FIELDS)
      expect(users.reduce((a: number, u: any) => a + u.metrics[f], 0)).toBe(daily.metrics[f]);
  });

  it('derived totals hold in every record: messages and modified lines are sums of their parts', async () => {
    const { body } = await c.get('user-activity', { ...RANGE, page_size: 100 });
    for (const u of body.users) {
      const m = u.metrics;
      expect(m.total_messages).toBe(
        m.chat_messages +
          m.ide_agent_messages +
          m.cli_agent_interactive_messages +
          m.cli_agent_non_interactive_messages +
          m.remote_agent_messages,
      );
      expect(m.completions_accepted).toBeLessThanOrEqual(m.completions_count);
    }
  });
});

describe('credit usage today', () => {
  it('shows today partially, growing with each 90-minute refresh', async () => {
    const sim = await simClient({ users: 200, now: '2026-11-21T01:00:00Z' });
    try {
      const total = async () => {
        const pages = await allPages(sim, 'credit-usage-by-user', {
          start_date: '2026-11-21',
          end_date: '2026-11-21',
          page_size: 500,
        });
        return pages.flatMap((p) => p.body.records).reduce((a: number, r: any) => a + r.credits_consumed, 0);
      };
      expect(await total()).toBe(0);
      sim.sim.configure({ now: '2026-11-21T09:10:00Z' });
      const morning = await total();
      sim.sim.configure({ now: '2026-11-21T09:20:00Z' });
      expect(await total()).toBe(morning);
      sim.sim.configure({ now: '2026-11-21T18:00:00Z' });
      expect(await total()).toBeGreaterThan(morning);
      expect(morning).toBeGreaterThan(0);
    } finally {
      await sim.close();
    }
  });
});
