import { describe, expect, it } from 'vitest';
import { isWholeMonth, monthOf } from '../../../src/history/store/store-rules.js';
import { parseIsoDay } from '../../../src/util/utc-date.js';

const day = (text: string) => parseIsoDay(text)!;

describe('calendar months of the store', () => {
  it('finds the month of a day, leap February and December included', () => {
    expect(monthOf(day('2024-02-10'))).toEqual({ start: day('2024-02-01'), end: day('2024-02-29') });
    expect(monthOf(day('2026-12-31'))).toEqual({ start: day('2026-12-01'), end: day('2026-12-31') });
  });

  it('tells a whole month from a range that is not one', () => {
    expect(isWholeMonth({ start: day('2026-10-01'), end: day('2026-10-31') })).toBe(true);
    expect(isWholeMonth({ start: day('2026-10-01'), end: day('2026-10-30') })).toBe(false);
    expect(isWholeMonth({ start: day('2026-10-02'), end: day('2026-11-01') })).toBe(false);
  });
});
