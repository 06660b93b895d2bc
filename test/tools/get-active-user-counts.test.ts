import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { harness, truth, type Harness } from '../helpers/mcp.js';
import { YESTERDAY } from '../helpers/sim.js';
import { R30, TOOL_TEST_USERS } from '../helpers/tools.js';

let h: Harness;
beforeAll(async () => {
  h = await harness({ sim: { users: TOOL_TEST_USERS } });
});
afterAll(() => h.close());

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
