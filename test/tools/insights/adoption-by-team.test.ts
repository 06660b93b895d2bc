import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseIsoDay } from '../../../src/util/utc-date.js';
import { orgHarnesses, type OrgHarnesses } from '../../helpers/org/org-harnesses.js';
import { sumGroups } from '../../helpers/org/org-files.js';
import { YESTERDAY } from '../../helpers/sim.js';

// Weeks from 2026-10-19 (the store's first whole one) to 2026-11-16; the mover changes teams on Wednesday 11-04.
const MOVE = '2026-11-04';
let t: OrgHarnesses;

beforeAll(async () => {
  t = await orgHarnesses(MOVE, { historyDays: 38, historyMonths: 0 });
}, 120_000);
afterAll(() => t?.close());

/** The people the simulator has active over days, each in the file's team of the last day (the mover by date). */
function activeBy(from: string, through: string): Map<string, number> {
  const to = through < YESTERDAY ? through : YESTERDAY;
  const { org: people, days } = t.sim.state;
  const emails = new Set<string>();
  for (let d = parseIsoDay(from)!; d <= parseIsoDay(to)!; d++)
    for (const i of days.get(d).ids)
      if (people.identities[i]!.kind === 'user') emails.add(people.identities[i]!.id.toLowerCase());
  const out = new Map<string, number>();
  for (const e of emails) {
    const team =
      e === t.org.mover.toLowerCase()
        ? to < MOVE
          ? 'Movers/Before'
          : 'Movers/After'
        : (t.org.teamOf.get(e) ?? '(unassigned)');
    out.set(team, (out.get(team) ?? 0) + 1);
  }
  return out;
}
type Row = { group: string; members: number; values: Record<string, number | string> };
const FIGURES = ['active', 'new', 'returning', 'retained'];

describe('get_adoption by team', () => {
  it("counts each week's people in their team of its last day, adding up to the organization's", async () => {
    const a = await t.single.call('get_adoption', { granularity: 'week', group_by: 'team' });
    expect(a.isError).toBe(false);
    const { periods, groups } = a.structured;
    expect(periods.length).toBeGreaterThanOrEqual(4);
    expect(groups.overlapping).toBe(false);
    for (const p of periods) {
      const truth = activeBy(p.start_date, p.end_date);
      for (const r of groups.rows as Row[])
        expect([r.group, Number(r.values[`${p.start_date}:active`] ?? 0)]).toEqual([r.group, truth.get(r.group) ?? 0]);
      for (const f of FIGURES) {
        const whole = p[f];
        if (whole === null) continue;
        expect(Number(groups.total.values[`${p.start_date}:${f}`] ?? 0)).toBe(whole);
        expect(Number(sumGroups(groups.rows, `${p.start_date}:${f}`))).toBe(whole);
      }
    }
    const row = (g: string) => (groups.rows as Row[]).find((r) => r.group === g)!;
    expect(row('(unassigned)').members).toBeGreaterThan(0);
    // The mover is in the old team for the weeks before the move, and in the new one for the week of it on.
    expect(row('Movers/Before').values[`${periods[0].start_date}:active`]).toBe(1);
    expect(row('Movers/After').values[`${periods.at(-1).start_date}:active`]).toBe(1);
    expect(row('Movers/After').values[`${periods[0].start_date}:active`]).toBeUndefined();
    expect(a.text).toContain('By team');
  });

  it('keeps only the teams asked for', async () => {
    const all = (await t.single.call('get_adoption', { granularity: 'week' })).structured;
    const eng = (await t.single.call('get_adoption', { granularity: 'week', teams: ['Eng'] })).structured;
    expect(eng.groups.rows.map((r: Row) => r.group)).toEqual(['Eng']);
    const last = all.periods.at(-1);
    const truth = activeBy(last.start_date, last.end_date);
    expect(Number(eng.groups.total.values[`${last.start_date}:active`])).toBe(
      (truth.get('Eng/Apps') ?? 0) + (truth.get('Eng/Platform') ?? 0),
    );
    expect(eng.periods).toEqual(all.periods);
  });

  it('says overlapping when someone is in two teams, and folds small groups in pseudonymous answers (live)', async () => {
    const two = (await t.overlap.call('get_adoption', { granularity: 'week', group_by: 'team:1' })).structured;
    expect(two.groups.overlapping).toBe(true);
    const p = two.periods.at(-1).start_date;
    expect(Number(sumGroups(two.groups.rows, `${p}:active`))).toBeGreaterThan(
      Number(two.groups.total.values[`${p}:active`]),
    );
    const folded = (await t.pseudo.call('get_adoption', { granularity: 'week', group_by: 'team' })).structured.groups;
    expect(folded.folded).toBe(true);
    const names = folded.rows.map((r: Row) => r.group);
    expect(names).not.toContain('Sales/Field');
    expect(names).toContain('Sales');
    expect(Number(sumGroups(folded.rows, `${p}:active`))).toBe(Number(folded.total.values[`${p}:active`]));
  });
});
