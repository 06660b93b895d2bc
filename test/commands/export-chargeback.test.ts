import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compareDecimals, sumDecimals } from '../../src/domain/numbers.js';
import type { DirectorySnapshot } from '../../src/directory/directory-row.js';
import { parseIsoDay } from '../../src/util/utc-date.js';
import { startSimulator, type Simulator } from '../../src/simulator/index.js';
import { storedHarness, type StoredHarness } from '../helpers/history.js';
import { parseCsv } from '../helpers/parse-csv.js';
import { NOW } from '../helpers/sim.js';
import { exportInProcess, readParquet } from './export-command.js';

const OCTOBER = ['--from', '2026-10-01', '--to', '2026-10-31', '--what', 'chargeback'];
type Line = { group: string; month: string; billed_amount_usd: string; credits?: string; members: number };

describe('org-analytics-mcp export --what chargeback, from the stored cost by day', () => {
  let sim: Simulator;
  let h: StoredHarness;
  let dir: string;
  let directory: string;

  beforeAll(async () => {
    sim = await startSimulator({ users: 40, now: NOW, rateLimit: false, token: 'rw', plan: 'credits' });
    dir = mkdtempSync(join(tmpdir(), 'export-chargeback-'));
    directory = join(dir, 'org.csv');
    const csv = await (await fetch(`${sim.url}/__sim/directory`, { headers: { authorization: 'Bearer rw' } })).text();
    writeFileSync(directory, csv);
    h = await storedHarness({ historyDays: 55, historyMonths: 0 }, { simulator: sim, config: { directory } });
  }, 120_000);
  afterAll(async () => {
    await h?.close();
    await sim?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** A directory version as the store records it: the mover in `team`, the others the file names in Eng. */
  const version = (mover: string, team: string): DirectorySnapshot => ({
    rows: [{ identity: `u:${mover}`, team: [team], primary: true, attributes: {} }],
    source: { kind: 'file', name: directory, loadedAt: NOW },
  });

  const exported = (argv: string[]) =>
    exportInProcess([...argv, '--history', h.where, '--api-token', sim.token, '--base-url', sim.url]);

  it("writes get_chargeback's lines as CSV and as Parquet, exactly", async () => {
    const answer = await h.call('get_chargeback', { start_month: '2026-10', by: 'team:1' });
    expect(answer.isError, answer.text).toBe(false);
    // Asked as the store keeps cost by day: answered from it.
    expect(answer.structured.freshness.source).toBe('history');
    const want = (answer.structured.lines as Line[]).map((l) => [
      l.month,
      l.group,
      l.billed_amount_usd,
      l.credits!,
      String(l.members),
    ]);
    expect(want.length).toBeGreaterThan(2);
    const csv = await exported([...OCTOBER, '--format', 'csv', '--by', 'team:1', '--directory', directory]);
    expect(csv.code, csv.said).toBe(0);
    const [header, ...rows] = parseCsv(csv.out);
    expect(header).toEqual(['month', 'group', 'billed_amount_usd', 'credits_consumed', 'members']);
    expect(rows).toEqual(want);

    const file = join(dir, 'october.parquet');
    const parquet = await exported([
      ...OCTOBER,
      '--format',
      'parquet',
      '--out',
      file,
      '--by',
      'team:1',
      '--directory',
      directory,
    ]);
    expect(parquet.code, parquet.said).toBe(0);
    const read = await readParquet(file);
    expect(read.map((r) => [r.month, r.group, r.billed_amount_usd, r.credits_consumed, String(r.members)])).toEqual(
      want,
    );
  });

  it('says it needs a directory, and writes nothing, without one', async () => {
    const run = await exported([...OCTOBER, '--format', 'csv']);
    expect(run.code).toBe(1);
    expect(run.said).toContain('--directory FILE');
    expect(run.out).toBe('');
  });

  it("splits a mover's month where the store recorded the move: the old team before the 15th, the new one from it", async () => {
    const top = await h.call('get_cost_analytics', {
      start_date: '2026-10-01',
      end_date: '2026-10-31',
      group_by: ['user'],
      limit: 100,
    });
    const mover = (top.structured.rows as Array<{ user: string }>).map((r) => r.user).find((u) => u.includes('@'))!;
    const daily = await h.call('get_cost_analytics', {
      start_date: '2026-10-01',
      end_date: '2026-10-31',
      granularity: 'day',
      filters: { user_emails: [mover] },
    });
    const cost = (days: (d: string) => boolean) =>
      sumDecimals(
        (daily.structured.rows as Array<{ start_date: string; cost: { billed_amount_usd: string } }>)
          .filter((r) => days(r.start_date))
          .map((r) => r.cost.billed_amount_usd),
      );
    // A store of its own, so that its directory's history is only this one: Sales from the 1st, Eng from the 15th.
    const own = await storedHarness({ historyDays: 55, historyMonths: 0 }, { simulator: sim });
    try {
      const store = own.history.source.store;
      await store.recordDirectory(version(mover, 'Sales'), parseIsoDay('2026-10-01')!);
      await store.recordDirectory(version(mover, 'Eng'), parseIsoDay('2026-10-15')!);
      const file = join(dir, 'moved.csv');
      writeFileSync(file, `user_email,team\n${mover},Eng\n`);
      const { code, out, said } = await exportInProcess(
        [...OCTOBER, '--format', 'csv', '--by', 'team', '--directory', file, '--history', own.where].concat([
          '--api-token',
          sim.token,
          '--base-url',
          sim.url,
        ]),
      );
      expect(code, said).toBe(0);
      const [, ...rows] = parseCsv(out);
      const line = (group: string) => rows.find((r) => r[1] === group)!;
      expect(
        compareDecimals(
          line('Sales')[2]!,
          cost((d) => d < '2026-10-15'),
        ),
      ).toBe(0);
      expect(
        compareDecimals(
          line('Eng')[2]!,
          cost((d) => d >= '2026-10-15'),
        ),
      ).toBe(0);
      expect([line('Sales')[4], line('Eng')[4]]).toEqual(['1', '1']);
      expect(rows.map((r) => r[1])).toContain('(unassigned)');
    } finally {
      await own.close();
    }
  }, 120_000);
});
