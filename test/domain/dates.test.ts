import { describe, expect, it } from 'vitest';
import {
  earliestDay,
  namedPeriodEnd,
  resolveDate,
  resolveNamedRange,
  resolveRange,
  splitRange,
  type DateRules,
} from '../../src/domain/dates.js';
import { UserInputError } from '../../src/errors.js';
import { daysAt } from '../../src/domain/published-days.js';
import { formatDay, parseIsoDay } from '../../src/util/utc-date.js';

const TODAY = parseIsoDay('2026-11-21')!;
/** 10:00 UTC on 2026-11-21, after the refresh hour: yesterday is published. */
const DAYS = daysAt(Date.parse('2026-11-21T10:00:00Z'), 3);
const at = (iso: string, hour = 3) => daysAt(Date.parse(iso), hour);
const show = (r: { start: number; end: number }) => [formatDay(r.start), formatDay(r.end)];

describe('resolveRange applies the spec defaults', () => {
  const cases: Array<[string, DateRules, object, [string, string]]> = [
    ['neither', 'metrics', {}, ['2026-11-14', '2026-11-20']],
    ['neither (credit usage ends yesterday too)', 'credit', {}, ['2026-11-14', '2026-11-20']],
    ['neither (cost)', 'cost', {}, ['2026-11-14', '2026-11-20']],
    ['only start', 'metrics', { start_date: '2026-10-01' }, ['2026-10-01', '2026-10-07']],
    ['only start, capped at yesterday', 'metrics', { start_date: '2026-11-18' }, ['2026-11-18', '2026-11-20']],
    [
      'only start, capped at today for credit usage',
      'credit',
      { start_date: '2026-11-18' },
      ['2026-11-18', '2026-11-21'],
    ],
    ['only end', 'metrics', { end_date: '2026-10-07' }, ['2026-10-01', '2026-10-07']],
    [
      'both, longer than 90 days (split later)',
      'metrics',
      { start_date: '2026-01-01', end_date: '2026-11-20' },
      ['2026-01-01', '2026-11-20'],
    ],
    [
      'credit usage at the edge of the two-year bound',
      'credit',
      { start_date: '2024-11-21', end_date: '2024-11-30' },
      ['2024-11-21', '2024-11-30'],
    ],
  ];
  it.each(cases)('%s', (_name, rules, input, expected) => {
    expect(show(resolveRange(input, rules, DAYS))).toEqual(expected);
  });
});

describe('resolveRange refuses what the upstream would, saying what to change', () => {
  const cases: Array<[string, DateRules, object, string | RegExp]> = [
    [
      'today',
      'metrics',
      { end_date: '2026-11-21' },
      "end_date 2026-11-21 is today; the latest complete day is 2026-11-20 (UTC); a day's figures are published at ~03:00 UTC the next day.",
    ],
    [
      'the future',
      'cost',
      { start_date: '2026-11-01', end_date: '2026-12-01' },
      /end_date 2026-12-01 is in the future; the latest complete day is 2026-11-20/,
    ],
    [
      'tomorrow for credit usage',
      'credit',
      { end_date: '2026-11-22' },
      /credit usage can be queried up to today, 2026-11-21/,
    ],
    ['a start after the latest day', 'metrics', { start_date: '2026-11-21' }, /start_date 2026-11-21 is today/],
    [
      'start after end',
      'metrics',
      { start_date: '2026-10-05', end_date: '2026-10-01' },
      /after end_date 2026-10-01; swap them/,
    ],
    [
      'a bad format',
      'metrics',
      { start_date: '10/01/2026' },
      /start_date '10\/01\/2026' is not a date; use YYYY-MM-DD/,
    ],
    ['an impossible date', 'metrics', { end_date: '2026-02-30' }, /not a date/],
    [
      'beyond the lookback',
      'metrics',
      { start_date: '2024-11-20', end_date: '2024-12-01' },
      /earliest day you can ask for is 2024-11-21/,
    ],
    [
      'credit usage beyond two years (515 requests of its 30/min budget for 1900)',
      'credit',
      { start_date: '1900-01-01' },
      /Credit usage is answered for the last 2 years at most: the earliest day you can ask for is 2024-11-21 \(UTC\)/,
    ],
    [
      'one date for cost analytics',
      'cost',
      { start_date: '2026-10-01' },
      /needs both start_date and end_date, or neither/,
    ],
  ];
  it.each(cases)('%s', (_name, rules, input, message) => {
    let error: unknown;
    try {
      resolveRange(input, rules, DAYS);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(UserInputError);
    if (typeof message === 'string') expect((error as Error).message).toBe(message);
    else expect((error as Error).message).toMatch(message);
  });

  it('clamps a start defaulted from end_date to the lookback', () => {
    expect(show(resolveRange({ end_date: '2024-11-23' }, 'metrics', DAYS))).toEqual(['2024-11-21', '2024-11-23']);
  });

  it('takes the later of two calendar years and 730 days as the earliest day, never one the upstream could refuse', () => {
    expect(formatDay(earliestDay(TODAY))).toBe('2024-11-21');
    // Across Feb 29 2028, two calendar years is 731 days: the 730-day bound wins.
    expect(formatDay(earliestDay(parseIsoDay('2028-03-01')!))).toBe('2026-03-02');
  });
});

describe('resolveDate', () => {
  it.each([
    [undefined, '2026-11-20'],
    ['2026-06-01', '2026-06-01'],
  ])('%s resolves to %s', (input, expected) => expect(formatDay(resolveDate(input, DAYS))).toBe(expected));
  it.each(['2026-11-21', '2027-01-01', '2024-11-20', 'yesterday'])('refuses %s', (input) =>
    expect(() => resolveDate(input, DAYS)).toThrow(UserInputError),
  );
});

describe('named ranges resolve in UTC against the latest allowed day', () => {
  it.each([
    ['last_7_days', 'metrics', ['2026-11-14', '2026-11-20']],
    ['last_30_days', 'metrics', ['2026-10-22', '2026-11-20']],
    ['last_90_days', 'metrics', ['2026-08-23', '2026-11-20']],
    ['month_to_date', 'metrics', ['2026-11-01', '2026-11-20']],
    ['previous_month', 'metrics', ['2026-10-01', '2026-10-31']],
    ['year_to_date', 'metrics', ['2026-01-01', '2026-11-20']],
    ['last_7_days', 'credit', ['2026-11-15', '2026-11-21']],
  ] as const)('%s (%s)', (name, rules, expected) => {
    expect(show(resolveNamedRange(name, rules, DAYS))).toEqual(expected);
  });

  it('previous_month in January is December of the year before', () => {
    expect(show(resolveNamedRange('previous_month', 'metrics', at('2026-01-15T10:00:00Z')))).toEqual([
      '2025-12-01',
      '2025-12-31',
    ]);
  });
});

describe('the latest complete day: yesterday from the refresh hour, the day before yesterday until then', () => {
  it.each([
    ['2026-11-21T01:00:00Z', 3, '2026-11-19'],
    ['2026-11-21T02:59:59Z', 3, '2026-11-19'],
    ['2026-11-21T03:00:00Z', 3, '2026-11-20'],
    ['2026-11-21T04:00:00Z', 3, '2026-11-20'],
    ['2026-11-21T01:00:00Z', 0, '2026-11-20'],
    ['2026-11-21T05:00:00Z', 6, '2026-11-19'],
  ])('at %s with refresh hour %d: %s', (now, hour, expected) => {
    expect(formatDay(daysAt(Date.parse(now), hour).published)).toBe(expected);
  });

  it.each([
    ['last_7_days', ['2026-11-13', '2026-11-19'], ['2026-11-14', '2026-11-20']],
    ['last_90_days', ['2026-08-22', '2026-11-19'], ['2026-08-23', '2026-11-20']],
    ['month_to_date', ['2026-11-01', '2026-11-19'], ['2026-11-01', '2026-11-20']],
    ['year_to_date', ['2026-01-01', '2026-11-19'], ['2026-01-01', '2026-11-20']],
  ] as const)('%s ends on it: at 01:00 %s, at 04:00 %s', (name, early, late) => {
    expect(show(resolveNamedRange(name, 'metrics', at('2026-11-21T01:00:00Z')))).toEqual(early);
    expect(show(resolveNamedRange(name, 'cost', at('2026-11-21T01:00:00Z')))).toEqual(early);
    expect(show(resolveNamedRange(name, 'metrics', at('2026-11-21T04:00:00Z')))).toEqual(late);
  });

  it('credit usage, which has today, keeps ending today', () => {
    expect(show(resolveNamedRange('last_7_days', 'credit', at('2026-11-21T01:00:00Z')))).toEqual([
      '2026-11-15',
      '2026-11-21',
    ]);
  });

  it('a default range and a default date end on it; only a start is capped there, explicit dates stay as asked', () => {
    const early = at('2026-11-21T01:00:00Z');
    expect(show(resolveRange({}, 'metrics', early))).toEqual(['2026-11-13', '2026-11-19']);
    expect(show(resolveRange({}, 'cost', early))).toEqual(['2026-11-13', '2026-11-19']);
    expect(formatDay(resolveDate(undefined, early))).toBe('2026-11-19');
    expect(show(resolveRange({ start_date: '2026-11-16' }, 'metrics', early))).toEqual(['2026-11-16', '2026-11-19']);
    expect(show(resolveRange({ start_date: '2026-11-20' }, 'metrics', early))).toEqual(['2026-11-20', '2026-11-20']);
    expect(show(resolveRange({ start_date: '2026-11-10', end_date: '2026-11-20' }, 'metrics', early))).toEqual([
      '2026-11-10',
      '2026-11-20',
    ]);
    expect(formatDay(resolveDate('2026-11-20', early))).toBe('2026-11-20');
    expect(show(resolveRange({}, 'metrics', at('2026-11-21T04:00:00Z')))).toEqual(['2026-11-14', '2026-11-20']);
  });

  describe('on the 1st of a month before the refresh (2026-12-01 01:30 UTC)', () => {
    const first = at('2026-12-01T01:30:00Z');
    it('previous_month is the month just ended, cut at its latest published day; its calendar end is still to come', () => {
      expect(show(resolveNamedRange('previous_month', 'metrics', first))).toEqual(['2026-11-01', '2026-11-29']);
      expect(formatDay(namedPeriodEnd('previous_month', 'metrics', first))).toBe('2026-11-30');
      expect(show(resolveNamedRange('previous_month', 'credit', first))).toEqual(['2026-11-01', '2026-11-30']);
    });
    it('month_to_date has no published day yet, and never falls back to November', () => {
      expect(() => resolveNamedRange('month_to_date', 'metrics', first)).toThrow(
        /month_to_date: the month 2026-12 has no published day yet \(2026-12-01 is published at ~03:00 UTC on 2026-12-02\)\. For the month just ended use previous_month/,
      );
      // Credit usage has today: its month to date is the 1st.
      expect(show(resolveNamedRange('month_to_date', 'credit', first))).toEqual(['2026-12-01', '2026-12-01']);
    });
    it('after the refresh, previous_month is all of November and month_to_date still has no day', () => {
      const later = at('2026-12-01T04:00:00Z');
      expect(show(resolveNamedRange('previous_month', 'metrics', later))).toEqual(['2026-11-01', '2026-11-30']);
      expect(() => resolveNamedRange('month_to_date', 'metrics', later)).toThrow(/2026-12 has no published day yet/);
    });
    it('year_to_date on 1 January has none either', () => {
      expect(() => resolveNamedRange('year_to_date', 'metrics', at('2027-01-01T10:00:00Z'))).toThrow(
        /year_to_date: the year 2027 has no published day yet/,
      );
    });
  });
});

describe('splitRange', () => {
  it('cuts a 200-day range into 90 + 90 + 20 consecutive days', () => {
    const start = parseIsoDay('2026-01-01')!;
    const windows = splitRange({ start, end: start + 199 });
    expect(windows.map((w) => w.end - w.start + 1)).toEqual([90, 90, 20]);
    expect(windows[1]!.start).toBe(windows[0]!.end + 1);
    expect(windows[2]!.end).toBe(start + 199);
  });
  it('leaves 90 days whole', () => expect(splitRange({ start: 0, end: 89 })).toEqual([{ start: 0, end: 89 }]));
});
