import { describe, expect, it } from 'vitest';
import { DirectoryFileError, parseDirectoryFile } from '../../src/directory/directory-file.js';
import { ORG_CSV } from './org-csv.js';

describe('the directory file', () => {
  it('reads identities case-insensitively for emails, paths as levels, and other columns as attributes', () => {
    const rows = parseDirectoryFile('org.csv', ORG_CSV);
    expect(rows[0]).toEqual({
      identity: 'u:ann@corp.example',
      team: ['Sales', 'EMEA'],
      attributes: { cost_center: 'CC-1', manager: 'bo@corp.example', location: 'Berlin', title: 'AE' },
      validTo: '2026-10-14',
    });
    expect(rows[4]!.identity).toBe('s:ci-bot');
    expect(rows[5]!.team).toEqual([]);
  });

  it('takes JSON lines too', () => {
    const rows = parseDirectoryFile('org.jsonl', '{"user_email":"e@x.com","team":"A/B","cost_center":"CC-4"}\n');
    expect(rows).toEqual([{ identity: 'u:e@x.com', team: ['A', 'B'], attributes: { cost_center: 'CC-4' } }]);
  });

  it('refuses a bad file whole, naming each problem by line and column, at most 20', () => {
    const bad = `user_email,team,primary,valid_from,valid_to
not-an-email,A,,,
a@x.com,A//B,maybe,2026-13-01,
b@x.com,A,,2026-10-10,2026-10-01
${Array.from({ length: 30 }, (_, i) => `x${i},A,,,`).join('\n')}
`;
    let error: DirectoryFileError | undefined;
    try {
      parseDirectoryFile('bad.csv', bad);
    } catch (e) {
      error = e as DirectoryFileError;
    }
    expect(error).toBeInstanceOf(DirectoryFileError);
    expect(error!.problems.slice(0, 5)).toEqual([
      'line 2, column 1 (user_email): "not-an-email" is not an email',
      'line 3, column 2 (team): "A//B" has an empty level',
      'line 3, column 3 (primary): "maybe" is not true or false',
      'line 3, column 4 (valid_from): "2026-13-01" is not a date YYYY-MM-DD',
      'line 4, column 5 (valid_to): 2026-10-01 is before valid_from 2026-10-10',
    ]);
    expect(error!.message).toContain('and 15 more');
    expect(() => parseDirectoryFile('x.csv', 'user_email,cost_center\na@x.com,CC\n')).toThrow(/"team" is missing/);
  });
});
