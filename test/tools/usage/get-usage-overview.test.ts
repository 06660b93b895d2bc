import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { harness, truth, truthAll, type Harness } from '../../helpers/mcp.js';
import { R30, TOOL_TEST_USERS, costTruth, idOf, micro } from '../../helpers/tools.js';

let h: Harness;
beforeAll(async () => {
  h = await harness({ sim: { users: TOOL_TEST_USERS } });
});
afterAll(() => h.close());

const BY_RESOURCE = { group_by_keys: ['COST_ANALYTICS_GROUP_BY_RESOURCE'] };
const PREVIOUS = { start_date: '2026-09-22', end_date: '2026-10-21' };
const billed = (points: any[]) => points.reduce((n, p) => n + micro(p.cost_metrics.billed_amount_usd), 0n);
const credits = (points: any[]) => points.reduce((n, p) => n + micro(p.cost_metrics.credits_consumed), 0n);

describe('get_usage_overview', () => {
  it('answers "how are we doing" over the last 30 days, every figure from the raw endpoints', async () => {
    const a = await h.call('get_usage_overview', {});
    expect(a.isError, a.text).toBe(false);
    const o = a.structured;
    expect([o.start_date, o.end_date]).toEqual([R30.start_date, R30.end_date]);

    const users = await truthAll(h.sim, 'user-activity', 'users', R30);
    const days: any[] = (await truth(h.sim, 'dau-count', R30)).daily_active_user_counts;
    expect(o.active_users.distinct).toBe(users.length);
    expect(o.active_users.daily_average).toBeCloseTo(days.reduce((n, d) => n + d.user_count, 0) / days.length, 1);
    expect(o.active_users.peak.user_count).toBe(Math.max(...days.map((d) => d.user_count)));
    // Full weeks of 2026-10-22 (Thu) .. 2026-11-20 (Fri): the first from Oct 26, the last from Nov 9.
    const week = (from: string) => {
      const i = days.findIndex((d) => d.date === from);
      return days.slice(i, i + 7).reduce((n, d) => n + d.user_count, 0) / 7;
    };
    expect(o.active_users.trend).toMatchObject({ method: 'full_weeks', from: { start: '2026-10-26' } });
    expect(o.active_users.trend.change_percent).toBeCloseTo(
      ((week('2026-11-09') - week('2026-10-26')) / week('2026-10-26')) * 100,
      0,
    );

    const top = [...users]
      .sort((x, y) => y.metrics.total_messages - x.metrics.total_messages || (idOf(x) < idOf(y) ? -1 : 1))
      .slice(0, 5);
    expect(o.top_users.map((u: any) => [u.user, u.total_messages])).toEqual(
      top.map((u) => [idOf(u), u.metrics.total_messages]),
    );

    const now = await costTruth(h.sim, { ...R30, ...BY_RESOURCE });
    const before = await costTruth(h.sim, { ...PREVIOUS, ...BY_RESOURCE });
    expect(micro(o.cost.billed_amount_usd)).toBe(billed(now));
    expect(micro(o.cost.credits_consumed)).toBe(credits(now));
    expect(o.previous).toMatchObject(PREVIOUS);
    expect(micro(o.previous.cost.billed_amount_usd)).toBe(billed(before));
    expect(micro(o.previous.change.billed_amount_usd.absolute)).toBe(billed(now) - billed(before));
    expect(o.previous.change.credits_consumed.percent).toBeCloseTo(
      (Number(credits(now) - credits(before)) / Number(credits(before))) * 100,
      1,
    );
    for (const m of o.cost_by_model) {
      const points = now.filter((p) => p.group_by_values.resource_display_name === m.model);
      expect(micro(m.billed_amount_usd), m.model).toBe(billed(points));
    }
    expect(o.cost_by_model.reduce((n: bigint, m: any) => n + micro(m.billed_amount_usd), 0n)).toBe(billed(now));
    // One source per figure, named: credits here are cost analytics', like the cost beside them.
    expect(o.sources).toEqual({
      active_users: 'dau-count',
      active_users_distinct: 'user-activity',
      top_users: 'user-activity',
      cost: 'cost-analytics',
      editors: 'daily-user-activity-by-editor-language',
    });
    expect(a.text).toMatch(/Cost and credits \(cost analytics\): billed/);

    // 2026-11-20 is a Friday: the range's last weekday.
    const records = await truthAll(h.sim, 'daily-user-activity-by-editor-language', 'records', {
      date: '2026-11-20',
    });
    expect(o.editors.date).toBe('2026-11-20');
    expect(o.editors.active_users).toBe(new Set(records.map(idOf)).size);
    for (const [editor, n] of Object.entries(o.editors.by_editor))
      expect(n, editor).toBe(new Set(records.filter((r) => r.editor === editor).map(idOf)).size);
    expect(a.text).toMatch(/one person can use several/);
    expect(a.text.match(/data through/g)).toHaveLength(1);
  });

  it('picks the last weekday for editors when the range ends on a weekend', async () => {
    const a = await h.call('get_usage_overview', { start_date: '2026-11-02', end_date: '2026-11-15' });
    expect(a.structured.editors.date).toBe('2026-11-13');
    expect(a.structured.active_users.trend.method).toBe('full_weeks');
  });

  it('answers "not complete yet" within its budget for a large organization, with progress, then in full', async () => {
    // 200 ms a page after the first two: the walks of 1500 people take a few seconds, the budget is 1 s.
    const slow = await harness({
      sim: { users: 1500 },
      config: { answerWithinS: 1 },
      client: { limits: { general: { perMinute: 300, burst: 2 } } },
    });
    try {
      const progress: string[] = [];
      const first = await slow.mcp.callTool(
        { name: 'get_usage_overview', arguments: { range: 'last_30_days' } },
        { onprogress: (p) => progress.push(p.message ?? '') },
      );
      const pending = first.structuredContent as any;
      expect(pending.complete).toBe(false);
      expect(pending.top_users).toBeUndefined();
      expect(pending.pending.retry_after_s).toBeGreaterThan(0);
      expect(progress.length).toBeGreaterThan(0);
      let again = await slow.call('get_usage_overview', { range: 'last_30_days' });
      for (let i = 0; i < 20 && again.structured.complete === false; i++) {
        await new Promise((r) => setTimeout(r, again.structured.pending.retry_after_s * 1000));
        again = await slow.call('get_usage_overview', { range: 'last_30_days' });
      }
      expect(again.structured.complete).toBe(true);
      expect(again.structured.top_users).toHaveLength(5);
    } finally {
      await slow.close();
    }
  }, 60_000);
});
