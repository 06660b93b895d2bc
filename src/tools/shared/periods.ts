import { z } from 'zod';
import {
  earliestDay,
  resolveNamedRange,
  resolveRangeArg,
  type DateRules,
  type DayRange,
  type NamedRange,
} from '../../domain/dates.js';
import type { RangeArg } from '../../upstream/endpoint.js';
import type { Days } from '../../domain/published-days.js';
import { percentOf, scaleDecimal, subtractDecimals } from '../../domain/numbers.js';

/**
 * The days a range argument names under the date rules (by default the metrics': yesterday at the
 * latest), as `list` resolves them; `fallback` when it names none.
 */
export function resolvePeriod(
  args: RangeArg,
  days: Days,
  fallback?: NamedRange,
  rules: DateRules = 'metrics',
): DayRange {
  if (fallback && args.range === undefined && args.start_date === undefined && args.end_date === undefined)
    return resolveNamedRange(fallback, rules, days);
  return resolveRangeArg(args, rules, days);
}

/** The same number of days just before; undefined when it reaches past the 2-year lookback. */
export function previousPeriod(r: DayRange, today: number): DayRange | undefined {
  const n = r.end - r.start + 1;
  const before = { start: r.start - n, end: r.start - 1 };
  return before.start < earliestDay(today) ? undefined : before;
}

export const changeOut = z.object({ absolute: z.string(), percent: z.number().nullable() });

/** A value as an exact fraction: a decimal over a positive whole number, e.g. an average as its sum over its count. */
export interface Exact {
  num: string;
  den: bigint;
}

/** The percent change from `before` to `now`, from their exact values, rounded to one decimal only at the end; null from zero. */
export function exactPercent(now: Exact, before: Exact): number | null {
  const x = scaleDecimal(now.num, before.den, 1n);
  const y = scaleDecimal(before.num, now.den, 1n);
  return percentOf(subtractDecimals(x, y), y);
}

/**
 * The absolute and percent change from `before` to `now`, as shown; the percent from their exact values
 * when they are rounded (`exact`), to one decimal, null from zero.
 */
export function change(now: string | number, before: string | number, exact?: [now: Exact, before: Exact]) {
  const absolute = subtractDecimals(String(now), String(before));
  const [x, y] = exact ?? [
    { num: String(now), den: 1n },
    { num: String(before), den: 1n },
  ];
  return { absolute, percent: exactPercent(x, y) };
}
