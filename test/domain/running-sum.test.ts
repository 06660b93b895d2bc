import { describe, expect, it } from 'vitest';
import { RunningSum } from '../../src/domain/running-sum.js';

const of = (values: Array<number | string>) => {
  const s = new RunningSum();
  for (const v of values) s.add(v);
  return s;
};

describe('RunningSum', () => {
  it('adds counts as numbers, and past 2^53 exactly as a string', () => {
    expect(of([1, 2, 3]).value()).toBe(6);
    expect(of([]).value()).toBe(0);
    expect(of([Number.MAX_SAFE_INTEGER, 2]).value()).toBe('9007199254740993');
    expect(of(['9007199254740993', 1]).value()).toBe('9007199254740994');
  });

  it('adds decimal strings exactly, at their finest scale', () => {
    expect(of(['0.10', '0.20', '0.000001']).value()).toBe('0.300001');
    expect(of(['1.50', '-0.50']).value()).toBe('1.00');
  });

  it('merges another sum, counts and decimals alike', () => {
    const a = of([Number.MAX_SAFE_INTEGER]);
    a.merge(of([Number.MAX_SAFE_INTEGER]));
    expect(a.value()).toBe('18014398509481982');
    const b = of(['0.25']);
    b.merge(of(['0.75']));
    expect(b.value()).toBe('1.00');
  });
});
