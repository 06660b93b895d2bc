import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TODAY, YESTERDAY, addDays, simClient, type SimClient } from '../../helpers/sim.js';

let c: SimClient;
beforeAll(async () => {
  c = await simClient({ users: 60 });
});
afterAll(() => c.close());

const EARLIEST = '2024-11-21'; // two calendar years before today (2026-11-21)
type Query = Record<string, string>;
const effective = (body: any) => [body.metadata.effective_start_date, body.metadata.effective_end_date];

describe('range defaults (dau-count, daily-usage, user-activity, credit-usage-by-user)', () => {
  const endpoints = ['dau-count', 'daily-usage', 'user-activity', 'credit-usage-by-user'];
  const cases: Array<[string, Query, string, [string, string], [string, string]?]> = [
    // name, query, endpoint kind, expected range, expected for credit-usage when it differs
    ['neither date: the 7 days ending yesterday', {}, '', [addDays(YESTERDAY, -6), YESTERDAY]],
    ['only start_date: 7 days from it', { start_date: '2026-10-01' }, '', ['2026-10-01', '2026-10-07']],
    [
      'only start_date near the end: capped at yesterday (today for credit usage)',
      { start_date: '2026-11-18' },
      '',
      ['2026-11-18', YESTERDAY],
      ['2026-11-18', TODAY],
    ],
    ['only end_date: 7 days ending at it', { end_date: '2026-10-07' }, '', ['2026-10-01', '2026-10-07']],
    [
      'both: the inclusive range',
      { start_date: '2026-09-01', end_date: '2026-09-30' },
      '',
      ['2026-09-01', '2026-09-30'],
    ],
    ['a single day', { start_date: '2026-09-01', end_date: '2026-09-01' }, '', ['2026-09-01', '2026-09-01']],
    [
      'exactly 90 days',
      { start_date: addDays(YESTERDAY, -89), end_date: YESTERDAY },
      '',
      [addDays(YESTERDAY, -89), YESTERDAY],
    ],
  ];
  for (const endpoint of endpoints) {
    it.each(cases)(`${endpoint}: %s`, async (_name, query, _kind, expected, credit) => {
      const res = await c.get(endpoint, query);
      expect(res.status, res.text).toBe(200);
      expect(effective(res.body)).toEqual(endpoint === 'credit-usage-by-user' && credit ? credit : expected);
    });
  }
});

describe('range limits', () => {
  const rejected: Array<[string, string, Query, RegExp]> = [
    ['dau-count', 'end_date today', { end_date: TODAY }, /latest queryable date 2026-11-20/],
    ['daily-usage', 'end_date in the future', { start_date: '2026-11-15', end_date: '2026-12-01' }, /latest queryable/],
    ['user-activity', 'start_date today (only start)', { start_date: TODAY }, /start_date 2026-11-21 is later/],
    [
      'credit-usage-by-user',
      'end_date tomorrow',
      { end_date: addDays(TODAY, 1) },
      /latest queryable date 2026-11-21 \(today/,
    ],
    ['dau-count', '91 days', { start_date: addDays(YESTERDAY, -90), end_date: YESTERDAY }, /91 days; at most 90/],
    ['credit-usage-by-user', '91 days', { start_date: '2020-01-01', end_date: '2020-03-31' }, /91 days/],
    ['daily-usage', 'start after end', { start_date: '2026-10-10', end_date: '2026-10-01' }, /after end_date/],
    [
      'user-activity',
      'start before the 2-year lookback',
      { start_date: addDays(EARLIEST, -1), end_date: addDays(EARLIEST, 5) },
      /lookback/,
    ],
    ['dau-count', 'end before the lookback', { end_date: addDays(EARLIEST, -1) }, /lookback/],
    ['dau-count', 'bad format', { start_date: '2026/10/01' }, /start_date must be a date in YYYY-MM-DD/],
    ['daily-usage', 'impossible date', { end_date: '2026-02-30' }, /end_date must be a date/],
    ['user-activity', 'empty date', { start_date: '' }, /YYYY-MM-DD/],
  ];
  it.each(rejected)('%s rejects %s', async (endpoint, _name, query, message) => {
    const res = await c.get(endpoint, query);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('InvalidArgument');
    expect(res.body.error.message).toMatch(message);
  });

  const accepted: Array<[string, string, Query]> = [
    ['credit-usage-by-user', 'end_date today', { start_date: addDays(TODAY, -3), end_date: TODAY }],
    ['credit-usage-by-user', 'dates beyond the 2-year lookback', { start_date: '2023-01-01', end_date: '2023-01-31' }],
    ['dau-count', 'start on the lookback boundary', { start_date: EARLIEST, end_date: addDays(EARLIEST, 3) }],
  ];
  it.each(accepted)('%s accepts %s', async (endpoint, _name, query) => {
    const res = await c.get(endpoint, query);
    expect(res.status, res.text).toBe(200);
  });

  it('clamps a defaulted start to the lookback when only end_date is given near it', async () => {
    const res = await c.get('dau-count', { end_date: addDays(EARLIEST, 2) });
    expect(res.status).toBe(200);
    expect(effective(res.body)).toEqual([EARLIEST, addDays(EARLIEST, 2)]);
  });
});

describe('single-date endpoints (dau, daily-user-activity-by-editor-language)', () => {
  const endpoints = ['dau', 'daily-user-activity-by-editor-language'];
  const cases: Array<[string, Query, number | string]> = [
    ['defaults to yesterday', {}, YESTERDAY],
    ['accepts a past date', { date: '2026-06-15' }, '2026-06-15'],
    ['accepts the lookback boundary', { date: EARLIEST }, EARLIEST],
    ['rejects today', { date: TODAY }, 400],
    ['rejects the future', { date: '2027-01-01' }, 400],
    ['rejects beyond the lookback', { date: addDays(EARLIEST, -1) }, 400],
    ['rejects a bad format', { date: '20261001' }, 400],
  ];
  for (const endpoint of endpoints) {
    it.each(cases)(`${endpoint} %s`, async (_name, query, expected) => {
      const res = await c.get(endpoint, query);
      if (typeof expected === 'number') {
        expect(res.status).toBe(expected);
        expect(res.body.error.code).toBe('InvalidArgument');
      } else {
        expect(res.status).toBe(200);
        expect(res.body.metadata.effective_date).toBe(expected);
      }
    });
  }
});

describe('cost-analytics dates', () => {
  const cases: Array<[string, unknown, [string, string] | RegExp]> = [
    ['both omitted: the 7 days ending yesterday', {}, [addDays(YESTERDAY, -6), YESTERDAY]],
    [
      'both given: the inclusive range',
      { start_date: '2026-10-01', end_date: '2026-10-31' },
      ['2026-10-01', '2026-10-31'],
    ],
    ['only start_date is rejected', { start_date: '2026-10-01' }, /Both start_date and end_date are required/],
    ['only end_date is rejected', { end_date: '2026-10-01' }, /Both start_date and end_date are required/],
    [
      'a numeric date is rejected',
      { start_date: 20261001, end_date: '2026-10-02' },
      /start_date must be a string in YYYY-MM-DD format/,
    ],
    ['a null date is rejected', { start_date: '2026-10-01', end_date: null }, /end_date must be a string/],
    ['an object date is rejected', { start_date: { y: 2026 }, end_date: '2026-10-02' }, /must be a string/],
    ['end_date today is rejected', { start_date: '2026-11-15', end_date: TODAY }, /latest queryable date 2026-11-20/],
    ['91 days are rejected', { start_date: addDays(YESTERDAY, -90), end_date: YESTERDAY }, /at most 90/],
    ['start after end is rejected', { start_date: '2026-10-02', end_date: '2026-10-01' }, /after end_date/],
    ['beyond the lookback is rejected', { start_date: '2024-11-01', end_date: '2024-11-30' }, /lookback/],
    ['a malformed date is rejected', { start_date: '2026-13-01', end_date: '2026-10-01' }, /YYYY-MM-DD/],
  ];
  it.each(cases)('%s', async (_name, body, expected) => {
    const res = await c.post('cost-analytics', body);
    if (Array.isArray(expected)) {
      expect(res.status, res.text).toBe(200);
      expect(effective(res.body)).toEqual(expected);
    } else {
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('InvalidArgument');
      expect(res.body.error.message).toMatch(expected);
    }
  });
});

describe('the clock', () => {
  it('moves "yesterday" when tests move the clock across midnight', async () => {
    const sim = await simClient({ users: 10, now: '2026-11-21T23:59:59Z' });
    try {
      expect((await sim.get('dau')).body.metadata.effective_date).toBe('2026-11-20');
      sim.sim.configure({ advance_ms: 2000 });
      expect((await sim.get('dau')).body.metadata.effective_date).toBe('2026-11-21');
      sim.sim.configure({ now: '2027-03-01T00:00:00Z' });
      expect((await sim.get('dau')).body.metadata.effective_date).toBe('2027-02-28');
      expect((await sim.get('dau')).body.metadata.generated_at).toBe('2027-03-01T00:00:00.000Z');
    } finally {
      await sim.close();
    }
  });
});
