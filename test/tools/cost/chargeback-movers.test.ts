import { describe, expect, it } from 'vitest';
import { parseDirectoryFile } from '../../../src/directory/directory-file.js';
import { Directory } from '../../../src/directory/directory.js';
import { parseGroupBy } from '../../../src/directory/group-by.js';
import { movedWithin } from '../../../src/tools/cost/chargeback-movers.js';
import { parseIsoDay } from '../../../src/util/utc-date.js';

const CSV = `user_email,team,cost_center,valid_from,valid_to
mover@x.com,Eng/Old,CC-1,,2026-03-14
mover@x.com,Sales/New,CC-2,2026-03-15,
shifter@x.com,Eng/A,CC-1,,2026-03-19
shifter@x.com,Eng/B,CC-1,2026-03-20,
still@x.com,Eng/A,CC-1,,
leaver@x.com,Eng/A,CC-1,,2026-03-09
`;
const directory = new Directory(parseDirectoryFile('org.csv', CSV), {
  kind: 'file',
  name: 'org.csv',
  loadedAt: '2026-11-28T00:00:00Z',
});
const day = (d: string) => parseIsoDay(d)!;
/** March cut where the directory changes, as a chargeback's parts are. */
const march = [
  { start: day('2026-03-01'), end: day('2026-03-09') },
  { start: day('2026-03-10'), end: day('2026-03-14') },
  { start: day('2026-03-15'), end: day('2026-03-19') },
  { start: day('2026-03-20'), end: day('2026-03-31') },
];
const april = [{ start: day('2026-04-01'), end: day('2026-04-30') }];

describe('who a chargeback reads by day in a month only the month of is stored', () => {
  it('is who changes group within the month, by the grouping asked', () => {
    const byTeam = movedWithin(directory, march, parseGroupBy('team', directory.attributeNames));
    const byCostCenter = movedWithin(directory, march, parseGroupBy('cost_center', directory.attributeNames));
    const byTop = movedWithin(directory, march, parseGroupBy('team:1', directory.attributeNames));
    expect(['u:mover@x.com', 'u:shifter@x.com', 'u:leaver@x.com'].map(byTeam)).toEqual([true, true, true]);
    // Two teams of one cost center, or of one top level: no move for that grouping.
    expect(byCostCenter('u:shifter@x.com')).toBe(false);
    expect(byCostCenter('u:mover@x.com')).toBe(true);
    expect(byTop('u:shifter@x.com')).toBe(false);
    expect(byTeam('u:still@x.com')).toBe(false);
    expect(byTeam('u:unknown@x.com')).toBe(false);
  });

  it('is no one in a month nobody moves in, whoever moved before', () => {
    const byTeam = movedWithin(directory, april, parseGroupBy('team', directory.attributeNames));
    expect(['u:mover@x.com', 'u:shifter@x.com', 'u:leaver@x.com'].some(byTeam)).toBe(false);
  });
});
