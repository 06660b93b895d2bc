import { describe, expect, it } from 'vitest';
import { formatDay, minusYears, parseIsoDay, weekday } from '../../src/util/utc-date.js';
import { decimalString } from '../../src/simulator/http/render.js';
import { stringifyWithBigInts } from '../../src/util/json.js';

describe('UTC day numbers', () => {
  it.each(['2026-11-21', '2024-02-29', '1999-12-31', '2000-01-01'])('round-trips %s', (d) => {
    expect(formatDay(parseIsoDay(d)!)).toBe(d);
  });
  it.each([
    '2026-02-29',
    '2026-13-01',
    '2026-00-10',
    '2026-1-01',
    '26-01-01',
    '2026-01-01T00:00:00Z',
    ' 2026-01-01',
    '',
  ])('refuses %j', (d) => {
    expect(parseIsoDay(d)).toBeUndefined();
  });
  it('knows the weekday', () => {
    expect(weekday(parseIsoDay('2026-11-21')!)).toBe(6);
    expect(weekday(parseIsoDay('1970-01-01')!)).toBe(4);
  });
  it('goes back calendar years, Feb 29 falling back to Feb 28', () => {
    expect(formatDay(minusYears(parseIsoDay('2026-11-21')!, 2))).toBe('2024-11-21');
    expect(formatDay(minusYears(parseIsoDay('2028-02-29')!, 2))).toBe('2026-02-28');
  });
});

describe('exact number rendering', () => {
  it.each([
    [1234500, 6, '1.2345'],
    [10, 6, '0.00001'],
    [0, 6, '0.00'],
    [1200000, 6, '1.20'],
    [123456, 2, '1234.56'],
    [-5, 2, '-0.05'],
    [123456789012345678901234567890n, 6, '123456789012345678901234.56789'],
  ] as const)('%s at scale %i is %s', (units, scale, text) => {
    expect(decimalString(units, scale)).toBe(text);
  });

  it('writes big integers as numbers up to 2^53-1 and as strings above', () => {
    expect(stringifyWithBigInts({ a: 9007199254740991n, b: 9007199254740992n, c: 1 })).toBe(
      '{"a":9007199254740991,"b":"9007199254740992","c":1}',
    );
  });
});
