import type { z } from 'zod';
import { UserInputError } from '../errors.js';
import type { DateRules } from '../upstream/dates.js';
import type { RangeArg } from '../upstream/endpoint.js';
import { comparison, comparisonOut, comparisonText, compareToInput, movers, otherPeriod } from './compare.js';
import type { CompareTo, Figure, Mover } from './compare.js';
import { datesOf, resolvePeriod } from './periods.js';
import type { ToolContext, ToolDef } from './types.js';

type Dates = { start_date: string; end_date: string };

/** What a range tool compares: its figures, and for per-identity data one value per identity for the movers. */
export interface CompareSpec<A, O> {
  rules?: DateRules;
  figures(out: O): Figure[];
  movers?: { by(args: A): string; read(ctx: ToolContext, args: A, period: Dates): Promise<Map<string, Mover>> };
}

/**
 * A range tool that also takes `compare_to`: it answers for both periods at once (so that one answer
 * budget covers both) and adds the figures side by side, with the absolute and percent change.
 */
export function comparable<I extends z.ZodObject, O extends z.ZodObject>(
  def: ToolDef<I, O>,
  spec: CompareSpec<z.output<I>, z.output<O>>,
): ToolDef {
  type Args = z.output<I> & RangeArg & { compare_to?: CompareTo; cursor?: string; page_size?: number };
  type Out = z.output<O> & Dates & { comparison?: z.output<typeof comparisonOut> };
  return {
    ...(def as unknown as ToolDef),
    input: def.input.extend({ compare_to: compareToInput }),
    output: def.output.extend({ comparison: comparisonOut.optional() }),
    async run(input, ctx) {
      const { compare_to: to, ...rest } = input as Args;
      const args = rest as unknown as z.output<I> & Args;
      if (!to) return def.run(args, ctx);
      if (args.cursor !== undefined || args.page_size !== undefined)
        throw new UserInputError('compare_to reads every page: leave out cursor and page_size.');
      const now = datesOf(resolvePeriod(args, ctx.client.today(), undefined, spec.rules));
      const then = otherPeriod(to, now.start_date, now.end_date);
      const earlier = { ...args, ...then, range: undefined } as z.output<I>;
      const [a, b, moved] = await Promise.all([
        def.run(args, ctx) as Promise<Out>,
        def.run(earlier, ctx) as Promise<Out>,
        spec.movers && Promise.all([spec.movers.read(ctx, args, now), spec.movers.read(ctx, args, then)]),
      ]);
      const c = comparison({ ...a, figures: spec.figures(a) }, { ...b, figures: spec.figures(b) });
      if (spec.movers && moved) c.movers = movers(spec.movers.by(args), c, moved[0], moved[1]);
      return { ...a, comparison: c };
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
