import { SMALL_GROUPS, UNASSIGNED } from '../../directory/directory-row.js';
import { NO_PERSON } from '../../insights/chargeback-lines.js';
import type { GroupBy } from '../../directory/group-by.js';
import { foldSmallGroups } from '../../directory/small-groups.js';
import type { DayRange } from '../../domain/dates.js';
import { RunningSum } from '../../domain/running-sum.js';
import { formatDay } from '../../util/utc-date.js';
import type { ToolContext } from '../types.js';
import type { OrgScope } from './org-groups.js';

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
  /** A row's figures, or the keys it counts once each (a person's active days: far cheaper than an object). */
  valuesOf: (row: R) => Values | readonly string[],
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
  const sumOf = (into: Acc, k: string) => {
    let at = into.values.get(k);
    if (!at) into.values.set(k, (at = new RunningSum()));
    return at;
  };
  const add = (into: Acc, id: string, values: Values | readonly string[]) => {
    into.ids.add(id);
    if (Array.isArray(values)) for (const k of values as readonly string[]) sumOf(into, k).add(1);
    else for (const k in values) sumOf(into, k).add((values as Values)[k]!);
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
