import { describe, expect, it } from 'vitest';
import type { Harness } from '../../helpers/mcp.js';
import { teamHarness } from '../../helpers/org/team-harness.js';

let h: Harness;
let single: Harness;
let file: string;
let primary: string;
const RANGE = { start_date: '2026-10-01', end_date: '2026-10-31' };

const org = teamHarness('by-team', {}, async (t) => {
  // The simulator's own chart: some people in two teams, some in none, some moved in the last 60 days.
  file = t.chartFile('org.csv');
  h = await t.harness(file);
  // The same chart with each person in their primary team only.
  primary = t.chartFile('primary.csv', { primaryOnly: true });
  single = await t.harness(primary);
});

const sumOf = (rows: Array<{ values: Record<string, number | string> }>, key: string) =>
  rows.reduce((n, r) => n + Number(r.values[key] ?? 0), 0);

describe('user activity by team', () => {
  it('gives groups that, with (unassigned), add up to the total when no one is in two groups', async () => {
    const a = await single.call('get_user_activity', {
      ...RANGE,
      group_by: 'cost_center',
      metrics: ['total_messages'],
    });
    expect(a.isError).toBe(false);
    const g = a.structured.groups;
    expect(g.overlapping).toBe(false);
    expect(g.directory).toMatchObject({ basis: 'today', source: `file: ${primary}` });
    expect(sumOf(g.rows, 'total_messages')).toBe(Number(g.total.values.total_messages));
    expect(sumOf(g.rows, 'active_days')).toBe(Number(g.total.values.active_days));
    // The groups cover everyone the per-person answer counts, including people the directory does not know.
    expect(g.total.members).toBe(a.structured.total_rows);
    expect(Number(g.total.values.total_messages)).toBe(a.structured.totals.values.total_messages);
    expect(g.rows.map((r: { group: string }) => r.group)).toContain('(unassigned)');
    expect(a.text).toContain('By cost_center');
  });

  it('counts someone in two teams in each, and says so', async () => {
    const a = await h.call('get_user_activity', { ...RANGE, group_by: 'cost_center' });
    const g = a.structured.groups;
    expect(g.overlapping).toBe(true);
    expect(g.rows.reduce((n: number, r: { members: number }) => n + r.members, 0)).toBeGreaterThan(g.total.members);
    expect(a.text).toContain('count in each');
  });

  it('keeps only the teams asked for, and groups by the first levels', async () => {
    const top = await h.call('get_user_activity', { ...RANGE, group_by: 'team:1' });
    const engineering = top.structured.groups.rows.find((r: { group: string }) => r.group === 'Engineering');
    expect(engineering.members).toBeGreaterThan(0);
    const only = await h.call('get_user_activity', { ...RANGE, teams: ['engineering'], group_by: 'team:1' });
    expect(only.structured.groups.rows.map((r: { group: string }) => r.group)).toContain('Engineering');
    expect(only.structured.total_rows).toBeLessThan(top.structured.total_rows);
    expect(only.structured.total_rows).toBeGreaterThan(0);
  });

  it('refuses an unknown grouping with the columns it knows, and grouping without a directory', async () => {
    const bad = await h.call('get_user_activity', { ...RANGE, group_by: 'division' });
    expect(bad.isError).toBe(true);
    expect(bad.text).toContain('cost_center');
    const plain = await org.harness(undefined);
    try {
      const none = await plain.call('get_user_activity', { ...RANGE, group_by: 'team' });
      expect(none.isError).toBe(true);
      expect(none.text).toContain('--directory');
    } finally {
      await plain.close();
    }
  });

  it('lists the teams with their levels and sizes, and where the directory came from', async () => {
    const t = await h.call('get_teams', { max_level: 1 });
    expect(t.isError).toBe(false);
    const s = t.structured;
    expect(s.directory).toMatchObject({ source: `file: ${file}`, basis: 'today' });
    expect(s.teams.every((x: { level: number }) => x.level === 1)).toBe(true);
    expect(s.columns).toEqual(['cost_center', 'location', 'manager']);
    const people = new Set(
      org.sim.state.orgChart().rows.map((r) => (r.user_email ?? `sa:${r.service_account_name}`).toLowerCase()),
    );
    expect(s.identities).toBe(people.size);
    const eng = await h.call('get_teams', { team: 'Engineering', max_level: 1 });
    expect(eng.structured.teams.every((x: { team: string }) => x.team.startsWith('Engineering'))).toBe(true);
    expect(eng.structured.teams.some((x: { level: number }) => x.level === 2)).toBe(true);
  });

  it('counts active people per team per day, each person once a day in each team', async () => {
    const a = await single.call('get_active_user_counts', {
      start_date: '2026-10-01',
      end_date: '2026-10-07',
      group_by: 'team:1',
    });
    expect(a.isError).toBe(false);
    const g = a.structured.groups;
    for (const d of a.structured.days as Array<{ date: string; user_count: number }>) {
      // The organization's count of the day is the total's, and the teams (no one in two) add up to it.
      expect(Number(g.total.values[d.date])).toBe(d.user_count);
      expect(
        g.rows.reduce((n: number, r: { values: Record<string, number> }) => n + Number(r.values[d.date] ?? 0), 0),
      ).toBe(d.user_count);
    }
    expect(a.text).toContain('By team:1');
  });

  it('groups inactive people by their team today, and keeps only the teams asked for', async () => {
    const all = await single.call('find_inactive_people', { inactive_days: 14, lookback_days: 45, group_by: 'team:1' });
    expect(all.isError).toBe(false);
    const g = all.structured.groups;
    expect(g.total.members).toBe(all.structured.count);
    expect(g.rows.reduce((n: number, r: { values: { inactive: number } }) => n + Number(r.values.inactive), 0)).toBe(
      all.structured.count,
    );
    const eng = await single.call('find_inactive_people', {
      inactive_days: 14,
      lookback_days: 45,
      teams: ['Engineering'],
    });
    expect(eng.structured.count).toBeLessThan(all.structured.count);
  });
});
