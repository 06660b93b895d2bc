import { z } from 'zod';
import { SMALL_GROUPS, UNASSIGNED } from '../../directory/directory-row.js';

import { NO_PERSON } from '../../insights/chargeback-lines.js';
import { parseGroupBy, type GroupBy } from '../../directory/group-by.js';
import type { OrgView } from '../../directory/org-view.js';
import { foldSmallGroups } from '../../directory/small-groups.js';
import { parseIsoDay } from '../../util/utc-date.js';
import type { DayRange } from '../../domain/dates.js';
import { RunningSum } from '../../domain/running-sum.js';
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

type Values = Record<string, number | string>;

/**
 * Figures per group, from each part's rows: an identity's figures of a part go to its groups on that part's
 * first day, and `(unassigned)` takes who the directory does not place. Exact sums; the total covers every
 * identity counted once, so with no one in two groups the groups add up to it exactly.
 */
export function groupFigures<R>(
  ctx: ToolContext,
  scope: OrgScope & { by: GroupBy },
  parts: ReadonlyArray<{ part: DayRange; rows: readonly R[] }>,
  identityOf: (row: R) => string | null,
  valuesOf: (row: R) => Values,
  rowOptions: {
    /** The row's own day, for rows of single days: its membership is that day's. */
    dayOf?: (row: R) => string | undefined;
    /** What else the row is grouped by (a product, a model), shown after the group: `Eng/Infra · Chat`. */
    suffixOf?: (row: R) => string;
  } = {},
) {
  const { dayOf, suffixOf } = rowOptions;
  type Acc = { ids: Set<string>; values: Map<string, RunningSum> };
  const fresh = (): Acc => ({ ids: new Set(), values: new Map() });
  const groups = new Map<string, Acc>();
  const people = new Map<string, Set<string>>();
  const total = fresh();
  let overlapping = false;
  const add = (into: Acc, id: string, values: Values) => {
    into.ids.add(id);
    for (const k in values) {
      let at = into.values.get(k);
      if (!at) into.values.set(k, (at = new RunningSum()));
      at.add(values[k]!);
    }
  };
  const groupOf = (key: string) => groups.get(key) ?? groups.set(key, fresh()).get(key)!;
  for (const { part, rows } of parts) {
    const first = formatDay(part.start);
    for (const row of rows) {
      const id = identityOf(row);
      const values = valuesOf(row);
      // Cost the API attributes to no person has a group of its own, so that the groups still add up.
      const suffix = suffixOf?.(row) ?? '';
      if (id === null) {
        if (scope.teams) continue;
        add(groupOf(`${NO_PERSON}\u0000${suffix}`), '', values);
        add(total, '', values);
        continue;
      }
      const day = dayOf?.(row) ?? first;
      if (scope.teams && !scope.view.directory.inTeams(id, day, scope.teams)) continue;
      const names = scope.view.directory.groupsOn(id, day, scope.by);
      if (names.length > 1) overlapping = true;
      for (const g of names) {
        add(groupOf(`${g}\u0000${suffix}`), id, values);
        (people.get(g) ?? people.set(g, new Set()).get(g)!).add(id);
      }
      add(total, id, values);
    }
  }
  // Folded by the people of each group, whatever else splits it: no figure reveals one person.
  const shown = foldedNames(ctx, scope.by, people);
  const merged = new Map<string, Acc>();
  for (const [key, acc] of groups) {
    const [g, suffix] = key.split('\u0000') as [string, string];
    const to = (shown.get(g) ?? g) + (suffix ? ` · ${suffix}` : '');
    const m = merged.get(to);
    if (!m) {
      merged.set(to, acc);
      continue;
    }
    for (const id of acc.ids) m.ids.add(id);
    for (const [k, sum] of acc.values) {
      const at = m.values.get(k);
      if (at) at.merge(sum);
      else m.values.set(k, sum);
    }
  }
  const out = (acc: Acc) => ({
    members: acc.ids.size - (acc.ids.has('') ? 1 : 0),
    values: Object.fromEntries([...acc.values].map(([k, sum]) => [k, sum.value()])) as Values,
  });
  return {
    by: scope.by.kind === 'attribute' ? scope.by.name : scope.by.depth ? `team:${scope.by.depth}` : 'team',
    rows: [...merged].map(([group, acc]) => ({ group, ...out(acc) })).sort((a, b) => order(a.group, b.group)),
    total: out(total),
    overlapping,
    folded: [...shown].some(([g, to]) => g !== to),
    directory: {
      source: `${scope.view.source.kind}: ${scope.view.source.name}`,
      basis: scope.view.basis,
      ...(scope.view.problem ? { problem: scope.view.problem } : {}),
    },
  };
}

/** With pseudonymous answers, no group's figure may reveal one person: small groups fold (directory/small-groups). */
function foldedNames(ctx: ToolContext, by: GroupBy, people: Map<string, Set<string>>): Map<string, string> {
  if (ctx.config.pii !== 'pseudonymous' || !ctx.org) return new Map();
  const sizes = new Map([...people].map(([g, ids]) => [g, ids.size]));
  return foldSmallGroups(sizes, ctx.org.minGroupSize, (g) => by.kind === 'team' && !g.startsWith('('));
}

/** Groups by name, with `(unassigned)` and `(small groups)` last. */
const order = (a: string, b: string) => {
  const special = (g: string) => (g === UNASSIGNED || g === SMALL_GROUPS || g === NO_PERSON ? 1 : 0);
  return special(a) - special(b) || a.localeCompare(b);
};

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
