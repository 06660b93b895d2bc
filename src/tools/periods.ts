import { z } from 'zod';
import {
  earliestDay,
  resolveNamedRange,
  resolveRangeArg,
  type DateRules,
  type DayRange,
  type NamedRange,
} from '../upstream/dates.js';
import type { RangeArg } from '../upstream/endpoint.js';
import { percentOf, subtractDecimals } from '../upstream/numbers.js';

/**
 * The days a range argument names under the date rules (by default the metrics': yesterday at the
 * latest), as `list` resolves them; `fallback` when it names none.
 */
export function resolvePeriod(
  args: RangeArg,
  today: number,
  fallback?: NamedRange,
  rules: DateRules = 'metrics',
): DayRange {
  if (fallback && args.range === undefined && args.start_date === undefined && args.end_date === undefined)
    return resolveNamedRange(fallback, rules, today);
  return resolveRangeArg(args, rules, today);
}

/** The same number of days just before; undefined when it reaches past the 2-year lookback. */
export function previousPeriod(r: DayRange, today: number): DayRange | undefined {
  const n = r.end - r.start + 1;
  const before = { start: r.start - n, end: r.start - 1 };
  return before.start < earliestDay(today) ? undefined : before;
}

export const changeOut = z.object({ absolute: z.string(), percent: z.number().nullable() });

/** The absolute and percent change from `before` to `now`, exactly; percent to one decimal, null from zero. */
export function change(now: string | number, before: string | number) {
  const absolute = subtractDecimals(String(now), String(before));
  return { absolute, percent: percentOf(absolute, String(before)) };
}
