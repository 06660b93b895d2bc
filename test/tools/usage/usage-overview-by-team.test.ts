import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { orgHarnesses, type OrgHarnesses } from '../../helpers/org/org-harnesses.js';
import { decimal, sumGroups } from '../../helpers/org/org-files.js';

const RANGE = { start_date: '2026-10-01', end_date: '2026-10-31' };
const MOVE = '2026-10-15';
let t: OrgHarnesses;

beforeAll(async () => {
  t = await orgHarnesses(MOVE);
}, 60_000);
afterAll(() => t?.close());

type Row = { group: string; members: number; values: Record<string, number | string> };
const row = (rows: Row[], group: string) => rows.find((r) => r.group === group);

describe('get_usage_overview by team', () => {
  it('gives groups that, with (unassigned) and (no person), add up exactly to the organization', async () => {
    const a = await t.single.call('get_usage_overview', { ...RANGE, group_by: 'team' });
    expect(a.isError).toBe(false);
    const out = a.structured;
    const g = out.groups;
    expect(g.overlapping).toBe(false);
    expect(g.by).toBe('team');
    expect(row(g.rows, '(unassigned)')!.members).toBeGreaterThan(0);
    for (const key of ['active_days', 'total_messages', 'billed_amount_usd', 'credits_consumed'])
      expect(sumGroups(g.rows, key)).toBe(decimal(g.total.values[key]));
    // The total is the organization's: its cost, and everyone active.
    expect(decimal(g.total.values.billed_amount_usd)).toBe(decimal(out.cost.billed_amount_usd));
    expect(decimal(g.total.values.credits_consumed)).toBe(decimal(out.cost.credits_consumed));
    const people = await t.single.call('get_user_activity', { ...RANGE, metrics: ['total_messages'], limit: 1 });
    expect(Number(g.total.values.total_messages)).toBe(people.structured.totals.values.total_messages);
    expect(a.text).toContain('By team');
  });

  it("counts a mover's days in the team of each day", async () => {
    const g = (await t.single.call('get_usage_overview', { ...RANGE, group_by: 'team' })).structured.groups;
    const figures = async (start_date: string, end_date: string) =>
      (
        await t.single.call('get_user_activity', {
          start_date,
          end_date,
          users: [t.org.mover],
          metrics: ['total_messages'],
        })
      ).structured.totals;
    const before = await figures(RANGE.start_date, '2026-10-14');
    const after = await figures(MOVE, RANGE.end_date);
    expect(before.active_user_days).toBeGreaterThan(0);
    expect(after.active_user_days).toBeGreaterThan(0);
    expect(Number(row(g.rows, 'Movers/Before')!.values.active_days)).toBe(before.active_user_days);
    expect(Number(row(g.rows, 'Movers/After')!.values.active_days)).toBe(after.active_user_days);
    expect(Number(row(g.rows, 'Movers/Before')?.values.total_messages ?? 0)).toBe(before.values.total_messages);
  });

  it('says overlapping when someone is in two teams', async () => {
    const g = (await t.overlap.call('get_usage_overview', { ...RANGE, group_by: 'team:1' })).structured.groups;
    expect(g.overlapping).toBe(true);
    expect(Number(sumGroups(g.rows, 'total_messages'))).toBeGreaterThan(Number(g.total.values.total_messages));
  });

  it('folds a group under the minimum size in pseudonymous answers, and still adds up', async () => {
    const plain = (await t.single.call('get_usage_overview', { ...RANGE, group_by: 'team' })).structured.groups;
    expect(row(plain.rows, 'Sales/Field')).toBeDefined();
    const a = await t.pseudo.call('get_usage_overview', { ...RANGE, group_by: 'team' });
    const g = a.structured.groups;
    expect(g.folded).toBe(true);
    expect(row(g.rows, 'Sales/Field')).toBeUndefined();
    expect(g.rows.every((r: Row) => r.members >= 5 || r.group.startsWith('('))).toBe(true);
    expect(row(g.rows, 'Sales')!.members).toBe(
      row(plain.rows, 'Sales')!.members + row(plain.rows, 'Sales/Field')!.members,
    );
    expect(sumGroups(g.rows, 'billed_amount_usd')).toBe(decimal(g.total.values.billed_amount_usd));
  });

  it('keeps only the teams asked for, top users included', async () => {
    const all = (await t.single.call('get_usage_overview', { ...RANGE, group_by: 'team:1' })).structured;
    const eng = (await t.single.call('get_usage_overview', { ...RANGE, teams: ['eng'] })).structured;
    expect(eng.groups.by).toBe('team:1');
    expect(eng.groups.rows.map((r: Row) => r.group)).toEqual(['Eng']);
    expect(eng.groups.total.members).toBe(row(all.groups.rows, 'Eng')!.members);
    expect(eng.groups.total.members).toBeLessThan(all.groups.total.members);
    expect(eng.top_users.length).toBeGreaterThan(0);
    for (const u of eng.top_users) expect(t.org.teamOf.get(u.user)).toMatch(/^Eng\//);
  });
});
