import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { orgHarnesses, type OrgHarnesses } from '../../helpers/org/org-harnesses.js';
import { decimal, sumGroups } from '../../helpers/org/org-files.js';
import { upstream } from '../../helpers/org/sim-rows.js';

// 40 stored days: of the last 30 complete days, those from 2026-11-09 have their 28-day baselines.
const JUDGED = { start: '2026-11-09', end: '2026-11-20' };
const MOVE = '2026-11-14';
let t: OrgHarnesses;
/** Credits by identity key (`u:email`, `s:account`) and date, as the upstream lists them. */
const credits = new Map<string, Map<string, number>>();

beforeAll(async () => {
  t = await orgHarnesses(MOVE, { historyDays: 40, historyMonths: 0 });
  const rows = await upstream(t.sim, 'credit-usage-by-user', {
    query: { start_date: '2026-10-12', end_date: JUDGED.end, by_date: 'true', page_size: '500' },
  });
  for (const r of rows) {
    const key = r.user_email ? `u:${r.user_email.toLowerCase()}` : `s:${r.service_account_name}`;
    const days = credits.get(key) ?? credits.set(key, new Map()).get(key)!;
    days.set(r.date, (days.get(r.date) ?? 0) + r.credits_consumed);
  }
}, 180_000);
afterAll(() => t?.close());

/** The file's team of an identity on a day: the mover's by the date, (unassigned) for who the file leaves out. */
const teamOn = (key: string, date: string) => {
  const email = key.slice(2);
  if (key.startsWith('u:') && email === t.org.mover.toLowerCase())
    return date < MOVE ? 'Movers/Before' : 'Movers/After';
  return (key.startsWith('u:') && t.org.teamOf.get(email)) || '(unassigned)';
};
/** The upstream's credits of a team over days, each day with that day's team. */
const creditsOf = (team: string, from: string, to: string) => {
  let n = 0;
  for (const [key, days] of credits)
    for (const [date, v] of days) if (date >= from && date <= to && teamOn(key, date) === team) n += v;
  return n;
};
type Row = { group: string; members: number; values: Record<string, number | string> };

describe('find_anomalies by team', () => {
  it("judges each team's day against its own weekday baseline, with the teams of each day", async () => {
    const r = await t.single.call('find_anomalies', { group_by: 'team', limit: 1000 });
    expect(r.isError).toBe(false);
    const out = r.structured;
    const grouped = out.anomalies.filter((a: any) => a.group !== undefined);
    expect(grouped.length).toBeGreaterThan(0);
    expect(new Set(grouped.map((a: any) => a.kind))).toEqual(
      new Set(['group_credits', 'group_cost', 'group_active_users']),
    );
    // Each team's credits of a flagged day are its members' of that day, the mover in the team of the day.
    for (const a of grouped.filter((x: any) => x.kind === 'group_credits'))
      expect(a.value).toBe(creditsOf(a.group, a.date, a.date));
    // The organization's own anomalies are still there beside the teams'.
    expect(out.anomalies.some((a: any) => a.kind === 'identity_credits')).toBe(true);
    expect(r.text).toContain('By team');
  });

  it('gives groups that, with (unassigned), add up exactly to the total, and splits a mover at the move', async () => {
    const g = (await t.single.call('find_anomalies', { group_by: 'team' })).structured.groups;
    expect(g.overlapping).toBe(false);
    expect(g.rows.map((r: Row) => r.group)).toContain('(unassigned)');
    for (const key of ['credits', 'billed_usd', 'active_days'])
      expect(sumGroups(g.rows, key)).toBe(decimal(g.total.values[key]));
    let all = 0;
    for (const days of credits.values()) for (const [date, v] of days) if (date >= JUDGED.start) all += v;
    expect(Number(g.total.values.credits)).toBe(all);
    const row = (name: string) => g.rows.find((r: Row) => r.group === name);
    expect(Number(row('Movers/Before').values.credits)).toBe(creditsOf('Movers/Before', JUDGED.start, JUDGED.end));
    expect(Number(row('Movers/After').values.credits)).toBe(creditsOf('Movers/After', JUDGED.start, JUDGED.end));
    expect(Number(row('Movers/Before').values.credits)).toBeGreaterThan(0);
    expect(Number(row('Movers/After').values.credits)).toBeGreaterThan(0);
  });

  it('keeps only the teams asked for: their people and their groups, not the organization', async () => {
    const out = (await t.single.call('find_anomalies', { teams: ['Eng'], limit: 1000 })).structured;
    expect(out.groups.by).toBe('team:1');
    expect(out.groups.rows.map((r: Row) => r.group)).toEqual(['Eng']);
    for (const a of out.anomalies) {
      expect(['org_credits', 'org_cost', 'org_active_users', 'new_resource', 'resource_cost']).not.toContain(a.kind);
      if (a.group === undefined) expect(t.org.teamOf.get(a.user_email)).toMatch(/^Eng\//);
      else expect(a.group).toBe('Eng');
    }
    expect(Number(out.groups.total.values.credits)).toBe(
      creditsOf('Eng/Apps', JUDGED.start, JUDGED.end) + creditsOf('Eng/Platform', JUDGED.start, JUDGED.end),
    );
  });

  it('says overlapping when someone is in two teams (live: credits only)', async () => {
    const out = (
      await t.overlap.call('find_anomalies', {
        ...{ start_date: JUDGED.start, end_date: JUDGED.end },
        group_by: 'team:1',
      })
    ).structured;
    expect(out.groups.overlapping).toBe(true);
    expect(out.anomalies.filter((a: any) => a.group !== undefined).every((a: any) => a.kind === 'group_credits')).toBe(
      true,
    );
    expect(Number(sumGroups(out.groups.rows, 'credits'))).toBeGreaterThan(Number(out.groups.total.values.credits));
  });

  it('folds a group under the minimum size in pseudonymous answers, series and figures alike', async () => {
    const out = (
      await t.pseudo.call('find_anomalies', {
        start_date: JUDGED.start,
        end_date: JUDGED.end,
        group_by: 'team',
        limit: 1000,
      })
    ).structured;
    expect(out.groups.folded).toBe(true);
    const names = out.groups.rows.map((r: Row) => r.group);
    expect(names).not.toContain('Sales/Field');
    expect(names).not.toContain('Movers/Before');
    for (const a of out.anomalies) if (a.group !== undefined) expect(names).toContain(a.group);
    expect(sumGroups(out.groups.rows, 'credits')).toBe(decimal(out.groups.total.values.credits));
    // Sales holds Sales/Field's people now: its credits of each day are both teams'.
    for (const a of out.anomalies.filter((x: any) => x.group === 'Sales'))
      expect(a.value).toBe(creditsOf('Sales', a.date, a.date) + creditsOf('Sales/Field', a.date, a.date));
  });
});
