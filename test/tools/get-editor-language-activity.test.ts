import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { METRIC_FIELDS } from '../../src/contract/metrics.js';
import { harness, truth, type Harness } from '../helpers/mcp.js';
import { YESTERDAY } from '../helpers/sim.js';
import { TOOL_TEST_USERS } from '../helpers/tools.js';

let h: Harness;
beforeAll(async () => {
  h = await harness({ sim: { users: TOOL_TEST_USERS } });
});
afterAll(() => h.close());

describe('get_editor_language_activity', () => {
  it('grouped by editor, sums to the day and counts distinct users', async () => {
    const a = await h.call('get_editor_language_activity', { group_by: 'editor', metrics: [...METRIC_FIELDS] });
    const day = (await truth(h.sim, 'daily-usage', { start_date: YESTERDAY, end_date: YESTERDAY })).daily_usage[0];
    for (const f of METRIC_FIELDS) expect(a.structured.totals.values[f]).toBe(day.metrics[f]);
    expect(new Set(a.structured.rows.map((r: any) => r.editor))).toEqual(
      new Set(['VS Code', 'JetBrains', 'CLI', 'Unknown']),
    );
    const dau = (await truth(h.sim, 'dau-count', { start_date: YESTERDAY, end_date: YESTERDAY }))
      .daily_active_user_counts[0].user_count;
    expect(a.structured.totals.users).toBe(dau);
  });

  it('says that one person can use several editors, so the per-editor counts add up to more than the distinct users', async () => {
    const a = await h.call('get_editor_language_activity', { group_by: 'editor' });
    const counted = a.structured.rows.reduce((n: number, r: any) => n + r.users, 0);
    expect(counted).toBeGreaterThan(a.structured.totals.users);
    expect(a.text).toMatch(new RegExp(`${a.structured.totals.users} distinct users`));
    expect(a.text).toContain(
      `One person can use several editors, so the users per row add up to ${counted}, more than the ${a.structured.totals.users} distinct users.`,
    );
  });

  it.each(['language', 'editor_language', 'user'])('groups by %s', async (group_by) => {
    const a = await h.call('get_editor_language_activity', { group_by, limit: 1000 });
    const keys = a.structured.rows.map((r: any) => `${r.editor ?? ''}|${r.language ?? ''}|${r.user ?? ''}`);
    expect(new Set(keys).size).toBe(keys.length);
  });
});
