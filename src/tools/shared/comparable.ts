import { checkRange } from '../../domain/dates.js';
import type { z } from 'zod';
import { UserInputError } from '../../errors.js';
import type { DateRules, DayRange } from '../../domain/dates.js';
import type { DaysArg, RangeArg } from '../../upstream/endpoint.js';
import { formatDay } from '../../util/utc-date.js';
import { comparison, comparisonOut, comparisonText, compareToInput, movers, otherPeriod } from './compare.js';
import type { CompareTo, Figure, Mover } from './compare.js';
import { resolvePeriod } from './periods.js';
import type { ToolContext, ToolDef } from '../types.js';

type Dates = { start_date: string; end_date: string };

/** compare_to's days, checked by the main range's rules: what the main range refuses, compare_to refuses alike. */
function checkedAsMain(other: DayRange, rules: DateRules, ctx: ToolContext): void {
  try {
    checkRange(other, rules, ctx.client.days());
  } catch (error) {
    if (error instanceof UserInputError) throw new UserInputError(`compare_to: ${error.message}`, error.nextStep);
    throw error;
  }
}

/** The days of a period up to `last`, the latest complete day; `what` names what lies after it. */
function completeDays(r: DayRange, last: number, what: string): DayRange {
  if (r.start > last)
    throw new UserInputError(
      `compare_to compares complete days only, and a period of ${what} alone has none: end it on ${formatDay(last)} or earlier.`,
    );
  return { start: r.start, end: Math.min(r.end, last) };
}

/** The tool's arguments for other days: the days themselves, resolved already, stand for its range. */
function onDays<A>(args: A, days: DayRange): A {
  return { ...args, range: undefined, start_date: undefined, end_date: undefined, days } satisfies DaysArg;
}

/** What a range tool compares: its figures, and for per-identity data one value per identity for the movers. */
export interface CompareSpec<A, O> {
  rules?: DateRules;
  figures(out: O): Figure[];
  /** `by` undefined: these arguments have no per-identity value (e.g. cost not grouped by user). */
  movers?: {
    by(args: A): string | undefined;
    read(ctx: ToolContext, args: A, period: DayRange): Promise<Map<string, Mover>>;
  };
}

/**
 * A range tool that also takes `compare_to`: it answers for both periods at once (so that one answer
 * budget covers both) and adds the figures side by side, with the absolute and percent change. Only
 * complete days are compared: a period that reaches today (credit usage) or a day not published yet is
 * compared without it, and `left_out` says so.
 */
export function comparable<I extends z.ZodObject, O extends z.ZodObject>(
  def: ToolDef<I, O>,
  spec: CompareSpec<z.output<I>, z.output<O>>,
): ToolDef {
  type Args = z.output<I> & RangeArg & { compare_to?: CompareTo; cursor?: string; page_size?: number };
  type Out = z.output<O> & Dates & { comparison?: z.output<typeof comparisonOut> };
  return {
    ...def,
    input: def.input.extend({ compare_to: compareToInput }),
    output: def.output.extend({ comparison: comparisonOut.optional() }),
    async run(input, ctx) {
      const { compare_to: to, ...rest } = input as Args;
      const args = rest as unknown as z.output<I> & Args;
      if (!to) return def.run(args, ctx);
      if (args.cursor !== undefined || args.page_size !== undefined)
        throw new UserInputError('compare_to reads every page: leave out cursor and page_size.');
      // Only complete days are compared: credit usage's today is partial, and other figures stop at the latest
      // published day; the main range and compare_to follow the same date rules.
      const days = ctx.client.days();
      const rules = spec.rules ?? 'metrics';
      const last = rules === 'credit' ? days.today - 1 : days.published;
      const after = (r: DayRange) =>
        rules === 'credit'
          ? 'today (partial)'
          : `${formatDay(last + 1)}${r.end > last + 1 ? `..${formatDay(r.end)}` : ''} (not published yet)`;
      const period = resolvePeriod(args, days, undefined, rules);
      const now = completeDays(period, last, after(period));
      const other = otherPeriod(to, now);
      // Both periods are checked before either is asked for: a refused comparison sends no request.
      checkedAsMain(other, rules, ctx);
      const then = other.end > last ? completeDays(other, last, after(other)) : other;
      const leftOut = [...new Set([period, other].filter((r) => r.end > last).map(after))];
      const current = period.end > last ? onDays(args, now) : undefined;
      const earlier = onDays(args, then);
      // The answer keeps today; the comparison reads its complete days apart.
      const by = spec.movers?.by(args);
      const [answer, completed, before, moved] = await Promise.all([
        def.run(args, ctx) as Promise<Out>,
        current && (def.run(current, ctx) as Promise<Out>),
        def.run(earlier, ctx) as Promise<Out>,
        by !== undefined &&
          spec.movers &&
          Promise.all([spec.movers.read(ctx, args, now), spec.movers.read(ctx, args, then)]),
      ]);
      const compared = completed ?? answer;
      const c = comparison(
        { ...compared, figures: spec.figures(compared) },
        { ...before, figures: spec.figures(before) },
        leftOut,
      );
      if (by !== undefined && moved) c.movers = movers(by, c, moved[0], moved[1]);
      return { ...answer, comparison: c };
    },
    text(out) {
      const lines = def.text(out as z.output<O>).split('\n');
      const c = (out as Out).comparison;
      // The freshness line stays last.
      if (c) lines.splice(lines.length - 1, 0, ...comparisonText(c));
      return lines.join('\n');
    },
  };
}
