import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Directory } from '../../src/directory/directory.js';
import { diffDirectories } from '../../src/directory/directory-diff.js';
import { parseDirectoryFile } from '../../src/directory/directory-file.js';
import { DirectoryState } from '../../src/directory/directory-state.js';
import { parseGroupBy } from '../../src/directory/group-by.js';
import { foldSmallGroups } from '../../src/directory/small-groups.js';
import { teamSummary } from '../../src/directory/team-summary.js';
import { ORG_CSV } from './org-csv.js';

const dir = mkdtempSync(join(tmpdir(), 'directory-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const source = { kind: 'file' as const, name: 'org.csv', loadedAt: '2026-11-01T00:00:00Z' };
const model = () => new Directory(parseDirectoryFile('org.csv', ORG_CSV), source);

describe('the directory model', () => {
  it('puts a mover in the old team before the move and the new one from that day', () => {
    const d = model();
    const team = parseGroupBy('team', d.attributeNames);
    expect(d.groupsOn('u:ann@corp.example', '2026-10-14', team)).toEqual(['Sales/EMEA']);
    expect(d.groupsOn('u:ann@corp.example', '2026-10-15', team)).toEqual(['Engineering/Platform/Infra']);
    expect(d.groupsOn('u:ann@corp.example', '2026-10-15', parseGroupBy('cost_center', d.attributeNames))).toEqual([
      'CC-2',
    ]);
    expect(d.changeDays('2026-10-01', '2026-10-31')).toEqual(['2026-10-15']);
    expect(d.changeDays('2026-10-15', '2026-10-31')).toEqual([]);
  });

  it('counts someone in two teams in each, and once in their primary team', () => {
    const d = model();
    const team = parseGroupBy('team', d.attributeNames);
    expect(d.groupsOn('u:cy@corp.example', '2026-11-01', team)).toEqual(['Engineering/Platform', 'On-call']);
    expect(d.primaryGroupOn('u:cy@corp.example', '2026-11-01', parseGroupBy('cost_center', d.attributeNames))).toBe(
      'CC-2',
    );
    expect(d.groupsOn('u:cy@corp.example', '2026-11-01', parseGroupBy('team:1', d.attributeNames))).toEqual([
      'Engineering',
      'On-call',
    ]);
  });

  it('groups identities it does not know, or in no team, as (unassigned), and filters by team and below', () => {
    const d = model();
    const team = parseGroupBy('team', d.attributeNames);
    expect(d.groupsOn('u:zed@corp.example', '2026-11-01', team)).toEqual(['(unassigned)']);
    expect(d.groupsOn('u:di@corp.example', '2026-11-01', team)).toEqual(['(unassigned)']);
    expect(d.inTeams('s:ci-bot', '2026-11-01', ['engineering/platform'])).toBe(true);
    expect(d.inTeams('u:ann@corp.example', '2026-10-01', ['Engineering'])).toBe(false);
    expect(d.inTeams('u:cy@corp.example', '2026-11-01', ['Engineering/Plat'])).toBe(false);
    expect(() => parseGroupBy('division', d.attributeNames)).toThrow(/cost_center, location, manager, title/);
  });

  it('summarises teams at every level with their sizes', () => {
    const { teams, inNoTeam } = teamSummary(model(), '2026-11-01');
    expect(teams.find((t) => t.team === 'Engineering')).toEqual({ team: 'Engineering', level: 1, size: 3, direct: 0 });
    expect(teams.find((t) => t.team === 'Engineering/Platform/Infra')).toMatchObject({ size: 2, direct: 2 });
    expect(inNoTeam).toBe(1);
  });

  it('answers 50,000 identities', () => {
    const lines = Array.from(
      { length: 50_000 },
      (_, i) => `p${i}@x.com,Div${i % 5}/Area${i % 40}/Team${i % 2000},CC-${i % 40}`,
    );
    const d = new Directory(
      parseDirectoryFile('big.csv', `user_email,team,cost_center\n${lines.join('\n')}\n`),
      source,
    );
    expect(d.size).toBe(50_000);
    expect(d.groupsOn('u:p4321@x.com', '2026-11-01', { kind: 'team', depth: 2 })).toEqual(['Div1/Area1']);
  });
});

describe('small groups and changes', () => {
  it('folds a group under the minimum into its parent, level by level, then into (small groups)', () => {
    const shown = foldSmallGroups(
      new Map([
        ['Eng/Platform/Infra', 3],
        ['Eng/Platform/Tools', 3],
        ['Eng/Web', 9],
        ['Ops', 2],
        ['(unassigned)', 1],
      ]),
      5,
      (g) => !g.startsWith('('),
    );
    expect(Object.fromEntries(shown)).toEqual({
      'Eng/Platform/Infra': 'Eng/Platform',
      'Eng/Platform/Tools': 'Eng/Platform',
      'Eng/Web': 'Eng/Web',
      Ops: '(small groups)',
      '(unassigned)': '(small groups)',
    });
  });

  it('tells what a new file would change: added, removed, moved', () => {
    const before = parseDirectoryFile('a.csv', 'user_email,team\na@x.com,A\nb@x.com,B\nc@x.com,C\n');
    const after = parseDirectoryFile('b.csv', 'user_email,team,cost_center\na@x.com,A,CC\nb@x.com,C,\nd@x.com,D,\n');
    expect(diffDirectories(before, after)).toEqual({
      added: ['u:d@x.com'],
      removed: ['u:c@x.com'],
      moved: ['u:b@x.com'],
      attributesChanged: ['u:a@x.com'],
    });
  });

  it('reads a changed file again, and keeps the last good directory when a change is refused', async () => {
    const file = join(dir, 'org.csv');
    writeFileSync(file, 'user_email,team\na@x.com,A\n');
    const state = new DirectoryState();
    state.load(file);
    state.watch(file);
    try {
      writeFileSync(file, 'user_email,team\na@x.com,A\nnot-an-email,B\n');
      await expect.poll(() => state.problem, { timeout: 10_000, interval: 200 }).toMatch(/line 3, column 1/);
      expect(state.current()!.size).toBe(1);
      writeFileSync(file, 'user_email,team\na@x.com,A\nb@x.com,B\n');
      await expect.poll(() => state.current()!.size, { timeout: 10_000, interval: 200 }).toBe(2);
      expect(state.problem).toBeUndefined();
    } finally {
      state.close();
    }
  }, 25_000);
});
