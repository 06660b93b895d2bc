import { z } from 'zod';
import { parseGroupBy, type GroupBy } from '../../directory/group-by.js';
import type { OrgView } from '../../directory/org-view.js';
import { parseIsoDay } from '../../util/utc-date.js';
import type { DayRange } from '../../domain/dates.js';
import { UserInputError } from '../../errors.js';
import { formatDay } from '../../util/utc-date.js';
import type { ToolContext } from '../types.js';

/** `group_by` and `teams` of the per-person tools (issue 34). */
export const orgInputs = {
  group_by: z
    .string()
    .min(1)
    .max(80)
    .optional()
    .describe('team, team:N or a directory column (cost_center…): per group'),
  teams: z.array(z.string().min(1).max(200)).min(1).max(50).optional().describe('only these teams and below'),
};

const figure = z.union([z.number(), z.string()]);
export const directoryOut = z.object({
  source: z.string(),
  basis: z.enum(['dated', 'today']).describe("'today': today's teams stand for every day (no history store)"),
  problem: z.string().optional(),
});
export const groupsOut = {
  groups: z
    .object({
      by: z.string(),
      rows: z.array(z.object({ group: z.string(), members: z.number().int(), values: z.record(z.string(), figure) })),
      total: z.object({ members: z.number().int(), values: z.record(z.string(), figure) }),
      overlapping: z.boolean().describe('someone counts in two groups: the groups add up to more than the total'),
      folded: z.boolean().describe('groups under --min-group-size folded into their parent'),
      directory: directoryOut,
    })
    .optional(),
};

export interface OrgScope {
  view: OrgView;
  by: GroupBy | undefined;
  teams: string[] | undefined;
  /** The range split where the directory changes: each part has one directory. */
  parts: DayRange[];
}

/** The directory over the range when the arguments group or filter by it; undefined when they do neither. */
export async function orgScope(
  ctx: ToolContext,
  range: DayRange,
  args: { group_by?: string | undefined; teams?: string[] | undefined },
): Promise<OrgScope | undefined> {
  if (args.group_by === undefined && args.teams === undefined) return undefined;
  const view = ctx.org && (await ctx.org.over(formatDay(range.start), formatDay(range.end)));
  if (!view)
    throw new UserInputError(
      'Teams and cost centers need a directory: start the server with --directory FILE (a CSV of user_email, team, cost_center…) or SCIM provisioning, or ask without group_by and teams.',
    );
  const by = args.group_by === undefined ? undefined : parseGroupBy(args.group_by, view.directory.attributeNames);
  const cuts = view.directory.changeDays(formatDay(range.start), formatDay(range.end)).map((d) => parseIsoDay(d)!);
  const parts: DayRange[] = [];
  let start = range.start;
  for (const cut of cuts) {
    parts.push({ start, end: cut - 1 });
    start = cut;
  }
  parts.push({ start, end: range.end });
  return { view, by, teams: args.teams, parts };
}

/** Whether an identity is in the `teams` asked for on a part's first day (always, without the filter). */
export const inScope = (scope: OrgScope, identity: string, part: DayRange) =>
  !scope.teams || scope.view.directory.inTeams(identity, formatDay(part.start), scope.teams);

/**
 * The rows of each part of the range: the whole range's rows when the directory does not change within it (no
 * second request), else one listing per part, each answered from the history store where it holds the days.
 */
export async function partRows<R>(
  scope: OrgScope,
  whole: readonly R[],
  read: (part: DayRange) => Promise<readonly R[]>,
): Promise<Array<{ part: DayRange; rows: readonly R[] }>> {
  if (scope.parts.length === 1) return [{ part: scope.parts[0]!, rows: whole }];
  // A few at a time: a range the directory changes in often has dozens of parts, each a listing of every person.
  const out = new Array<{ part: DayRange; rows: readonly R[] }>(scope.parts.length);
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < scope.parts.length; i = next++)
      out[i] = { part: scope.parts[i]!, rows: await read(scope.parts[i]!) };
  };
  await Promise.all(Array.from({ length: Math.min(4, scope.parts.length) }, worker));
  return out;
}

/** A range of `YYYY-MM-DD` days as day numbers. */
export const dayRangeOf = (start: string, end: string): DayRange => ({
  start: parseIsoDay(start)!,
  end: parseIsoDay(end)!,
});
