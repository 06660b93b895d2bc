import { tidyDecimal } from '../../domain/numbers.js';
import { UserInputError } from '../../errors.js';
import { costUnits, decimalOf } from '../../insights/digest-cost.js';
import { dailyUnits, daysIn } from './cost-daily-units.js';
import { formatDay } from '../../util/utc-date.js';
import type { DayRange } from '../../domain/dates.js';
import type { PageArgs } from '../../upstream/client.js';
import type { CostPoint } from '../../upstream/endpoints/cost-analytics.js';
import type { Listed } from '../shared/listing.js';
import { dayRangeOf, orgScope } from '../shared/org-groups.js';
import { groupFigures } from '../shared/group-figures.js';
import type { ToolContext } from '../types.js';
import { SHORT, type CostFilters } from './cost-query.js';

export interface CostGroupSplit {
  /** The directory's grouping asked for (team, team:N or a column), if any. */
  org: string | undefined;
  /** The upstream keys the caller asked for. */
  upstream: string[];
  /** What is asked of the upstream: those, and the user when the directory groups or filters. */
  asked: string[];
}

export type CostArgs = { granularity: 'total' | 'day'; filters?: CostFilters; teams?: string[] | undefined } & PageArgs;
export type Groups = ReturnType<typeof groupFigures>;

/** The directory's scope of a cost question, its grouping known; undefined when it neither groups nor filters. */
export async function costScope(ctx: ToolContext, args: CostArgs, split: CostGroupSplit, listed: Listed<CostPoint>) {
  if (split.org !== undefined && !ctx.org && !/^team(:\d+)?$/.test(split.org))
    throw new UserInputError(
      `group_by "${split.org.slice(0, 60)}" is not known: use ${Object.keys(SHORT).join(', ')}; with a directory (--directory), also team, team:N or one of its columns`,
    );
  const scope = await orgScope(ctx, dayRangeOf(listed.start, listed.end), { group_by: split.org, teams: args.teams });
  return scope && { ...scope, by: scope.by ?? { kind: 'team' as const, depth: 1 } };
}

/**
 * Groups from per-identity sums of the store's digests: over the whole range for whoever's teams are the same
 * every day, per part for the others (a part's first day gives its teams); per day, each day's with that day's
 * teams, for granularity day. Undefined when a part is not stored.
 */
export async function digestGroups(ctx: ToolContext, args: CostArgs, split: CostGroupSplit, listed: Listed<CostPoint>) {
  const scope = await costScope(ctx, args, split, listed);
  if (!scope) return undefined;
  const directory = scope.view.directory;
  const byDay = args.granularity === 'day';
  const ranges = byDay ? scope.parts.flatMap(daysIn) : scope.parts;
  const sums = byDay
    ? await dailyUnits(ctx, ranges)
    : await costUnits(
        ctx,
        ranges.map((days) => ({ days, bucket: 0 })),
        (id) => !directory.sameEveryDay(id),
      );
  if (!sums) return undefined;
  // Integer units all the way to the groups' sums, written as decimals once: no decimal text per person.
  type Sum = { id: string | null; b: number; c: number; day: string };
  const safe = (n: bigint) => (Number.isSafeInteger(Number(n)) ? Number(n) : undefined);
  const parts: Array<{ part: DayRange; rows: Sum[] }> = [];
  for (const [i, s] of sums.parts.entries()) {
    const day = formatDay(ranges[i]!.start);
    const rows: Sum[] = [...s.ids].map(([id, v]) => ({ id, ...v, day }));
    if (s.rest) {
      const [b, c] = [safe(s.rest.b), safe(s.rest.c)];
      if (b === undefined || c === undefined) return undefined;
      rows.push({ id: null, b, c, day });
    }
    parts.push({ part: ranges[i]!, rows });
  }
  const groups = groupFigures(
    ctx,
    scope,
    parts,
    (r) => r.id,
    (r) => ({ billed_amount_usd: r.b, credits_consumed: r.c }),
    byDay ? { suffixOf: (r) => r.day } : {},
  );
  const scales: Record<string, number> = { billed_amount_usd: sums.scale, credits_consumed: sums.creditScale };
  const decimals = (v: Groups['total']['values']) =>
    Object.fromEntries(Object.entries(v).map(([k, x]) => [k, decimalOf(BigInt(x), scales[k]!)]));
  return tidy({
    ...groups,
    rows: groups.rows.map((r) => ({ ...r, values: decimals(r.values) })),
    total: { ...groups.total, values: decimals(groups.total.values) },
  });
}

/** Amounts as the upstream writes them ("1.50" → "1.50", "1.500000" → "1.50"): alike whichever path summed them. */
export function tidy(groups: Groups): Groups {
  const values = (v: Groups['total']['values']) =>
    Object.fromEntries(Object.entries(v).map(([k, x]) => [k, typeof x === 'string' ? tidyDecimal(x) : x]));
  return {
    ...groups,
    rows: groups.rows.map((r) => ({ ...r, values: values(r.values) })),
    total: { ...groups.total, values: values(groups.total.values) },
  };
}
