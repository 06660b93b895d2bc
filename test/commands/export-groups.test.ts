import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { METRIC_FIELDS } from '../../src/contract/metrics.js';
import { storedHarness, type StoredHarness } from '../helpers/history.js';
import { decimal, exactSum, writeOrgFile } from '../helpers/org/org-files.js';
import { teamHarness } from '../helpers/org/team-harness.js';
import { parseCsv } from '../helpers/parse-csv.js';
import { exportBinary, exportInProcess, readParquet } from './export-command.js';

/** A command line written as one string: its words. */
const argv = (line: string) => line.split(' ');
const DAYS = argv('--from 2026-11-01 --to 2026-11-10');
const MOVE = '2026-11-05';

type Org = ReturnType<typeof writeOrgFile>;
/** One store per directory file: each store keeps the directory it was read with, dated, as a server's does. */
interface Setup {
  org: Org;
  store: StoredHarness;
}

describe('org-analytics-mcp export --group-by / --teams, from a store the sync filled', () => {
  let single: Setup;
  let overlap: Setup;
  const org = teamHarness('export-groups', { users: 40 }, async (t) => {
    const store = () => storedHarness({ historyDays: 21, historyMonths: 0 }, { simulator: t.sim });
    single = { org: writeOrgFile(t.sim, t.dir, 'single.csv', { moveDay: MOVE }), store: await store() };
    overlap = {
      org: writeOrgFile(t.sim, t.dir, 'overlap.csv', { moveDay: MOVE, overlap: true }),
      store: await store(),
    };
  });
  afterAll(async () => {
    await single?.store.close();
    await overlap?.store.close();
  });

  const server = (s: Setup) => ['--history', s.store.where, '--api-token', org.sim.token, '--base-url', org.sim.url];
  const run = (s: Setup, argv: string[], directory = true) =>
    exportInProcess([...DAYS, ...argv, ...(directory ? ['--directory', s.org.file] : []), ...server(s)]);

  /** The export's per-person rows, as records by column name. */
  async function people(s: Setup, what: string) {
    const { code, out } = await run(s, ['--what', what, '--format', 'csv'], false);
    expect(code).toBe(0);
    return records(out);
  }
  function records(csv: string): Array<Record<string, string>> {
    const [header, ...rows] = parseCsv(csv);
    return rows.map((r) => Object.fromEntries(header!.map((h, i) => [h, r[i]!])));
  }

  /** The team the test's own file gives a per-person row on its day; `extra`: the overlapping person's second. */
  const teamsOf = (s: Setup, r: Record<string, string>): string[] => {
    const email = r.user_email?.toLowerCase();
    if (!email && !r.service_account_name) return ['(no person)'];
    if (email && email === s.org.mover) return [r.date! < MOVE ? 'Movers/Before' : 'Movers/After'];
    const team = (email && s.org.teamOf.get(email)) || '(unassigned)';
    return email && email === s.org.overlapping ? [team, 'Sales'] : [team];
  };
  const idOf = (r: Record<string, string>) => r.user_email?.toLowerCase() || r.service_account_name || '';

  it('writes cost per day and team: each group exactly its people, (unassigned) and (no person) too, and a (total) they add up to', async () => {
    const persons = await people(single, 'cost');
    const { code, out, said } = await run(single, argv('--what cost --group-by team --format csv'));
    expect(code, said).toBe(0);
    const [header] = parseCsv(out);
    expect(header!.slice(0, 3)).toEqual(['date', 'group', 'members']);
    expect(header).toContain('billed_amount_usd');
    const rows = records(out);
    const days = [...new Set(persons.map((r) => r.date!))];
    expect(days.length).toBeGreaterThanOrEqual(9);
    expect([...new Set(rows.map((r) => r.date))]).toEqual(days);
    for (const day of days) {
      // What the test's own reading of the file and the per-person rows says each group holds that day.
      const want = new Map<string, { ids: Set<string>; billed: string[] }>();
      for (const r of persons.filter((p) => p.date === day))
        for (const g of teamsOf(single, r)) {
          const acc = want.get(g) ?? want.set(g, { ids: new Set(), billed: [] }).get(g)!;
          if (g !== '(no person)') acc.ids.add(idOf(r));
          acc.billed.push(r.billed_amount_usd!);
        }
      const got = rows.filter((r) => r.date === day);
      expect(got.at(-1)!.group).toBe('(total)');
      const groups = got.slice(0, -1);
      expect(
        Object.fromEntries(groups.map((r) => [r.group, [Number(r.members), decimal(r.billed_amount_usd!)]])),
      ).toEqual(Object.fromEntries([...want].map(([g, acc]) => [g, [acc.ids.size, exactSum(acc.billed)]])));
      // No one in two teams: the groups, (unassigned) and (no person) among them, make the total to the last digit.
      const total = got.at(-1)!;
      expect(exactSum(groups.map((r) => r.billed_amount_usd!))).toBe(decimal(total.billed_amount_usd!));
      expect(decimal(total.billed_amount_usd!)).toBe(
        exactSum(persons.filter((p) => p.date === day).map((p) => p.billed_amount_usd!)),
      );
      expect(groups.reduce((n, r) => n + Number(r.members), 0)).toBe(Number(total.members));
    }
    expect(rows.some((r) => r.group === '(unassigned)' && Number(r.members) > 0)).toBe(true);
    // The mover counts in the old team before the move and in the new one from that day.
    expect(rows.filter((r) => r.group === 'Movers/Before').every((r) => r.date! < MOVE)).toBe(true);
    expect(rows.filter((r) => r.group === 'Movers/After').every((r) => r.date! >= MOVE)).toBe(true);
    expect(said).not.toContain('counts in each');
  });

  it('counts a person in two teams in each over the range, says so, and keeps the total counting them once', async () => {
    const persons = await people(overlap, 'user-activity');
    const { code, out, said } = await run(
      overlap,
      argv('--what user-activity --group-by team:1 --granularity total --format csv'),
    );
    expect(code, said).toBe(0);
    expect(said).toContain('counts in each');
    const [header] = parseCsv(out);
    expect(header).toEqual(['start_date', 'end_date', 'group', 'members', 'active_days', ...METRIC_FIELDS]);
    const rows = records(out);
    expect(rows.every((r) => r.start_date === '2026-11-01' && r.end_date === '2026-11-10')).toBe(true);
    const total = rows.at(-1)!;
    expect(total.group).toBe('(total)');
    expect(Number(total.members)).toBe(new Set(persons.map(idOf)).size);
    expect(total.total_messages).toBe(exactSum(persons.map((p) => p.total_messages!)));
    const groups = rows.slice(0, -1);
    expect(groups.reduce((n, r) => n + Number(r.members), 0)).toBeGreaterThan(Number(total.members));
    // Sales (and Sales/Field below it) with the overlapping person, who is also in their own team.
    const sales = persons.filter((p) => teamsOf(overlap, p).some((t) => t.split('/')[0] === 'Sales'));
    expect(sales.map(idOf)).toContain(overlap.org.overlapping);
    const row = groups.find((r) => r.group === 'Sales')!;
    expect(Number(row.members)).toBe(new Set(sales.map(idOf)).size);
    expect(row.total_messages).toBe(exactSum(sales.map((p) => p.total_messages!)));
  });

  it('writes the same rows as Parquet as CSV, by a directory column', async () => {
    const csv = await run(single, argv('--what credits --group-by cost_center --format csv'));
    expect(csv.code, csv.said).toBe(0);
    const [header, ...want] = parseCsv(csv.out);
    expect(header).toEqual(['date', 'group', 'members', 'credits_consumed']);
    expect(new Set(want.map((r) => r[1]))).toEqual(new Set(['CC-Eng', 'CC-Sales', 'CC-M', '(unassigned)', '(total)']));
    const file = join(org.dir, 'credits.parquet');
    const parquet = await run(single, [...argv('--what credits --group-by cost_center --format parquet --out'), file]);
    expect(parquet.code, parquet.said).toBe(0);
    const read = await readParquet(file);
    expect(read.map((r) => header!.map((h) => String(r[h])))).toEqual(want);
  });

  it('keeps only the teams asked for, per person or per group, and names a team no one was in', async () => {
    const persons = await people(single, 'credits');
    const inSales = (r: Record<string, string>) => teamsOf(single, r).some((t) => t.split('/')[0] === 'Sales');
    const kept = await run(single, argv('--what credits --teams sales --format csv'));
    expect(kept.code, kept.said).toBe(0);
    const rows = records(kept.out);
    expect(rows.length).toBeGreaterThan(0);
    expect(rows).toEqual(persons.filter(inSales));

    const grouped = await run(single, argv('--what credits --group-by team --teams Sales,Nowhere --format csv'));
    expect(grouped.code).toBe(0);
    expect(grouped.said).toContain("'Nowhere'");
    const groups = records(grouped.out);
    expect(new Set(groups.map((r) => r.group))).toEqual(new Set(['Sales', 'Sales/Field', '(total)']));
    const totals = groups.filter((r) => r.group === '(total)');
    expect(exactSum(totals.map((r) => r.credits_consumed!))).toBe(exactSum(rows.map((r) => r.credits_consumed!)));
  });

  it('folds groups under --min-group-size with --pii pseudonymous, and still adds up', async () => {
    const { code, out, said } = await run(
      single,
      argv('--what cost --group-by team --granularity total --pii pseudonymous --min-group-size 5 --format csv'),
    );
    expect(code, said).toBe(0);
    expect(out).not.toMatch(/@/);
    const rows = records(out);
    const groups = rows.slice(0, -1);
    // Sales/Field's two people fold into Sales; the movers' single person folds away.
    expect(groups.map((r) => r.group)).not.toContain('Sales/Field');
    for (const r of groups)
      if (!['(no person)', '(small groups)'].includes(r.group!)) expect(Number(r.members)).toBeGreaterThanOrEqual(5);
    expect(exactSum(groups.map((r) => r.billed_amount_usd!))).toBe(decimal(rows.at(-1)!.billed_amount_usd!));
  });

  it('says what is missing or unknown: no directory, an unknown column, flags that do not go together', async () => {
    const none = await run(single, argv('--what cost --group-by team --format csv'), false);
    expect(none.code).toBe(1);
    expect(none.said).toContain('--group-by needs a directory: add --directory FILE');
    expect(none.out).toBe('');
    const teams = await run(single, argv('--what cost --teams Sales --format csv'), false);
    expect(teams.said).toContain('--teams needs a directory');
    await expect(run(single, argv('--what cost --group-by division --format csv'))).rejects.toThrow(
      "--group-by 'division' is not known: use team, team:N (the first N levels) or one of the directory's columns: cost_center",
    );
    await expect(run(single, argv('--what cost --by team --format csv'))).rejects.toThrow('--group-by');
    await expect(run(single, argv('--what cost --granularity total --format csv'))).rejects.toThrow('add --group-by');
    await expect(run(single, argv('--what chargeback --group-by team --format csv'))).rejects.toThrow(
      'groups with --by',
    );
    await expect(run(single, argv('--what cost --group-by team:0 --format csv'))).rejects.toThrow(
      'levels count from 1',
    );
  });

  it('the built program: --help tells the grouping, an unknown column exits 2 naming the known ones', async () => {
    const help = await exportBinary(['--help']);
    expect(help.status).toBe(0);
    expect(help.stdout).toContain('--group-by GROUPING');
    expect(help.stdout).toContain('(total)');
    const line = argv('--what cost --format csv --group-by division --directory');
    const bad = await exportBinary([...DAYS, ...line, single.org.file, ...server(single)]);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain("one of the directory's columns: cost_center");
    expect(bad.stdout).toBe('');
  });
});
