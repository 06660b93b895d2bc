import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import type { DirectoryRow, DirectorySnapshot } from '../../../src/directory/directory-row.js';
import type { HistoryStore } from '../../../src/history/store/history-store.js';
import { openHistory } from '../../../src/history/store/open-history.js';
import { parseIsoDay } from '../../../src/util/utc-date.js';

const PG_URL = process.env.HISTORY_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const dir = mkdtempSync(join(tmpdir(), 'memberships-'));
const opened: HistoryStore[] = [];
const schemas: string[] = [];
afterAll(async () => {
  for (const s of opened) await s.close();
  const c = new pg.Client({ connectionString: PG_URL });
  await c.connect();
  for (const s of schemas) await c.query(`DROP SCHEMA IF EXISTS "${s}" CASCADE`);
  await c.end();
  rmSync(dir, { recursive: true, force: true });
});

let n = 0;
async function store(engine: 'sqlite' | 'postgres'): Promise<HistoryStore> {
  const credential = `dirmem${process.pid}x${Date.now()}x${n++}`;
  if (engine === 'postgres') schemas.push(`org_analytics_${credential}`);
  const s = await openHistory(
    engine === 'sqlite'
      ? { kind: 'sqlite', path: join(dir, `${credential}.sqlite`) }
      : { kind: 'postgres', url: PG_URL },
    credential,
  );
  opened.push(s!);
  return s!;
}

const D = (text: string) => parseIsoDay(text)!;
const row = (identity: string, team: string, extra: Partial<DirectoryRow> = {}): DirectoryRow => ({
  identity,
  team: team ? team.split('/') : [],
  attributes: { cost_center: 'CC-1' },
  ...extra,
});
const snap = (rows: DirectoryRow[], loadedAt = '2026-10-01T00:00:00Z'): DirectorySnapshot => ({
  rows,
  source: { kind: 'file', name: 'org.csv', loadedAt },
});
/** The rows holding over a range, as comparable text: identity team [from..to]. */
const held = async (s: HistoryStore, start: string, end: string) =>
  (await s.membershipRows(D(start), D(end)))
    .map((r) => `${r.identity} ${r.team.join('/')}${r.primary ? '*' : ''} [${r.validFrom ?? ''}..${r.validTo ?? ''}]`)
    .sort();

describe.each(['sqlite', 'postgres'] as const)('the directory kept day by day (%s)', (engine) => {
  it('holds the first directory for every earlier day, and dates a move on the day it is recorded', async () => {
    const s = await store(engine);
    expect(await s.directorySince()).toBeUndefined();
    await s.recordDirectory(snap([row('u:ann@x.com', 'Sales'), row('u:bo@x.com', 'Eng/Core')]), D('2026-10-01'));
    expect(await held(s, '2025-01-01', '2025-01-31')).toEqual(['u:ann@x.com Sales [..]', 'u:bo@x.com Eng/Core [..]']);
    expect((await s.directorySince())?.first).toBeNull();

    const moved = await s.recordDirectory(
      snap([row('u:ann@x.com', 'Eng/Core'), row('u:bo@x.com', 'Eng/Core')]),
      D('2026-10-15'),
    );
    expect(moved).toEqual({ opened: 1, closed: 1 });
    expect(await held(s, '2026-10-01', '2026-10-31')).toEqual([
      'u:ann@x.com Eng/Core [2026-10-15..]',
      'u:ann@x.com Sales [..2026-10-14]',
      'u:bo@x.com Eng/Core [..]',
    ]);
    // Before the move only the old team holds; after it only the new one.
    expect(await held(s, '2026-10-01', '2026-10-14')).toEqual([
      'u:ann@x.com Sales [..2026-10-14]',
      'u:bo@x.com Eng/Core [..]',
    ]);
    expect(await held(s, '2026-10-15', '2026-10-20')).toEqual([
      'u:ann@x.com Eng/Core [2026-10-15..]',
      'u:bo@x.com Eng/Core [..]',
    ]);
  });

  it('changes nothing when the same directory is recorded again, and drops what opened and closed on one day', async () => {
    const s = await store(engine);
    const two = snap([row('u:cy@x.com', 'Eng', { primary: true }), row('u:cy@x.com', 'Ops')]);
    await s.recordDirectory(two, D('2026-10-01'));
    expect(await s.recordDirectory(two, D('2026-10-02'))).toEqual({ opened: 0, closed: 0 });
    await s.recordDirectory(
      snap([row('u:cy@x.com', 'Eng', { primary: true }), row('u:cy@x.com', 'Data')]),
      D('2026-10-05'),
    );
    // Changed back on the same day: the Data row that held for no whole day is gone.
    await s.recordDirectory(snap([row('u:cy@x.com', 'Eng', { primary: true })]), D('2026-10-05'));
    expect(await held(s, '2026-09-01', '2026-10-31')).toEqual([
      'u:cy@x.com Eng* [..]',
      'u:cy@x.com Ops [..2026-10-04]',
    ]);
  });

  it('closes a removed identity and an attribute change, and keeps dated rows as given', async () => {
    const s = await store(engine);
    await s.recordDirectory(snap([row('u:di@x.com', 'Eng'), row('s:ci-bot', 'Eng')]), D('2026-10-01'));
    await s.recordDirectory(
      snap([
        row('u:di@x.com', 'Eng', { attributes: { cost_center: 'CC-2' } }),
        row('u:ed@x.com', 'Sales', { validTo: '2026-09-30' }),
        row('u:ed@x.com', 'Eng', { validFrom: '2026-10-01' }),
      ]),
      D('2026-10-10'),
    );
    const rows = await s.membershipRows(D('2026-09-01'), D('2026-10-31'));
    expect(
      rows.filter((r) => r.identity === 'u:di@x.com').map((r) => [r.attributes.cost_center, r.validFrom, r.validTo]),
    ).toEqual([
      ['CC-1', undefined, '2026-10-09'],
      ['CC-2', '2026-10-10', undefined],
    ]);
    expect(await held(s, '2026-10-10', '2026-10-31')).not.toContain('s:ci-bot Eng [..2026-10-09]');
    expect(await held(s, '2026-09-01', '2026-10-31')).toContain('s:ci-bot Eng [..2026-10-09]');
    expect(await held(s, '2026-09-01', '2026-10-31')).toEqual(
      expect.arrayContaining(['u:ed@x.com Sales [..2026-09-30]', 'u:ed@x.com Eng [2026-10-01..]']),
    );
    // A dated source said again replaces its rows, it does not add to them.
    await s.recordDirectory(snap([row('u:ed@x.com', 'Eng', { validFrom: '2026-10-01' })]), D('2026-10-12'));
    expect((await held(s, '2026-09-01', '2026-10-31')).filter((t) => t.startsWith('u:ed'))).toEqual([
      'u:ed@x.com Eng [2026-10-01..]',
    ]);
  });

  it('records 50,000 identities, and a second time as a no-op', async () => {
    const s = await store(engine);
    const rows = Array.from({ length: 50_000 }, (_, i) => row(`u:p${i}@x.com`, `Div${i % 7}/Team${i % 2000}`));
    expect(await s.recordDirectory(snap(rows), D('2026-10-01'))).toEqual({ opened: 50_000, closed: 0 });
    expect(await s.recordDirectory(snap(rows), D('2026-10-02'))).toEqual({ opened: 0, closed: 0 });
    expect(await s.membershipRows(D('2026-10-01'), D('2026-10-31'))).toHaveLength(50_000);
  }, 60_000);
});
