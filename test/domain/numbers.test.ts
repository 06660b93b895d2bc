import { describe, expect, it } from 'vitest';
import { compareDecimals, fromBigInt, sumCounts, sumDecimals } from '../../src/domain/numbers.js';

describe('exact decimal sums', () => {
  it.each([
    [['0.10', '0.20'], '0.30'],
    [Array(10).fill('0.1'), '1.0'],
    [['1.005', '2'], '3.005'],
    [['-1.50', '0.25'], '-1.25'],
    [['99999999999999999999.999999', '0.000001'], '100000000000000000000.000000'],
    // Beyond 2^53 units part-way: summed as BigInt, exactly.
    [['9007199254.740991', '0.000001', '-0.000002'], '9007199254.740990'],
    [['9007199254740991', '1', '-1'], '9007199254740991'],
    [['1.5', '9007199254740991'], '9007199254740992.5'],
    [['-0.00'], '0.00'],
    [['12', '0.345'], '12.345'],
    [[], '0'],
  ])('%j sums to %s', (values, total) => expect(sumDecimals(values)).toBe(total));

  it('differs from floating point where floating point is wrong', () => {
    expect(0.1 + 0.2).not.toBe(0.3);
    expect(sumDecimals(['0.1', '0.2'])).toBe('0.3');
  });

  it('compares exactly', () => {
    expect(compareDecimals('10.00', '9.999')).toBe(1);
    expect(compareDecimals('0.30', '0.3')).toBe(0);
    expect(compareDecimals('-1', '0')).toBe(-1);
  });
});

describe('token counts', () => {
  it('sum as BigInt and come back as a string above 2^53−1', () => {
    expect(sumCounts([Number.MAX_SAFE_INTEGER, 1])).toBe('9007199254740992');
    expect(sumCounts(['9214775806402117', 3])).toBe('9214775806402120');
    expect(sumCounts([1, 2])).toBe(3);
    expect(fromBigInt(9007199254740991n)).toBe(9007199254740991);
  });
});
