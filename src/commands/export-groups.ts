import type { Directory } from '../directory/directory.js';
import { SMALL_GROUPS, UNASSIGNED } from '../directory/directory-row.js';
import { groupByText, type GroupBy } from '../directory/group-by.js';
import { foldSmallGroups } from '../directory/small-groups.js';
import { SHAPES, type DerivedShape, type ExportCell, type Masks, type StoredKind } from '../export/columns.js';
import { GROUP_FIGURES, GroupSums, groupColumns } from '../export/group-figures.js';
import { identityOf } from '../history/store/store-rows.js';
import { NO_PERSON } from '../insights/chargeback-lines.js';
import { teamFilter } from './export-teams.js';

/** The row of each day (or of the range) that counts every identity once: the organization, or the teams asked. */
export const TOTAL = '(total)';

export interface OrgExport {
  kind: StoredKind;
  directory: Directory;
  /** Rows per group; none: the per-person rows, kept to `teams`. */
  by: GroupBy | undefined;
  teams: string[] | undefined;
  granularity: 'day' | 'total';
  /** The days asked, YYYY-MM-DD: a range's rows carry them. */
  range: [string, string];
  /** With --pii pseudonymous, the smallest group shown (smaller ones fold, as in answers). */
  fold: number | undefined;
  masks: Masks;
  say: (line: string) => void;
}

type Day = { date: string; rows: Record<string, unknown>[] };

/**
 * `export --group-by` / `--teams` of user activity, credits or cost: with a grouping, one row per group and day (or
 * per group over the range), each identity's figures of a day in its groups of that day, then the `(total)` row;
 * without one, the per-person rows of the identities in `teams` that day. A day at a time is held in memory.
 */
export function orgExport(o: OrgExport): DerivedShape {
  const shape = SHAPES[o.kind];
  if (!o.by)
    return {
      dataset: shape.dataset,
      columns: shape.columns,
      async *derive(days) {
        const filter = teamFilter(o.directory, o.teams, o.say);
        for await (const day of days)
          for (const record of day.rows)
            if (filter.keeps(identityOf(record), day.date)) yield shape.cells(day.date, record, o.masks);
        filter.done();
      },
    };
  const by = o.by;
  return {
    dataset: shape.dataset,
    columns: groupColumns(o.kind, o.granularity),
    derive: (days) => groupedRows(o, by, days),
  };
}

async function* groupedRows(o: OrgExport, by: GroupBy, days: AsyncIterable<Day>): AsyncGenerator<ExportCell[]> {
  const figures = GROUP_FIGURES[o.kind];
  const filter = o.teams ? teamFilter(o.directory, o.teams, o.say) : undefined;
  let groups = new Map<string, GroupSums>();
  let total = new GroupSums(figures);
  let overlapping = false;
  const emit = (when: string[]) => {
    const rows = shownRows(o, by, groups).map(([g, acc]) => [...when, o.masks.text(g), ...acc.cells()]);
    rows.push([...when, TOTAL, ...total.cells()]);
    groups = new Map();
    total = new GroupSums(figures);
    return rows;
  };
  for await (const day of days) {
    for (const record of day.rows) {
      const id = identityOf(record);
      if (filter && !filter.keeps(id, day.date)) continue;
      // Cost the API attributes to no person is a group of its own, so that the groups still add up.
      const names = id === null ? [NO_PERSON] : o.directory.groupsOn(id, day.date, by);
      if (names.length > 1) overlapping = true;
      for (const g of names) (groups.get(g) ?? groups.set(g, new GroupSums(figures)).get(g)!).add(id, record);
      total.add(id, record);
    }
    if (o.granularity === 'day') yield* emit([day.date]);
  }
  if (o.granularity === 'total') yield* emit(o.range);
  filter?.done();
  if (overlapping)
    o.say(
      `someone is in two groups by ${groupByText(by)} and counts in each: the groups add up to more than the ${TOTAL} row`,
    );
}

/** The groups as shown: with pseudonymous answers, those under the minimum size folded (directory/small-groups). */
function shownRows(o: OrgExport, by: GroupBy, groups: Map<string, GroupSums>): Array<[string, GroupSums]> {
  let shown = groups;
  if (o.fold !== undefined) {
    const sizes = new Map([...groups].filter(([g]) => g !== NO_PERSON).map(([g, acc]) => [g, acc.ids.size]));
    const to = foldSmallGroups(sizes, o.fold, (g) => by.kind === 'team' && !g.startsWith('('));
    shown = new Map();
    for (const [g, acc] of groups) {
      const name = to.get(g) ?? g;
      const into = shown.get(name) ?? shown.set(name, new GroupSums(GROUP_FIGURES[o.kind])).get(name)!;
      into.merge(acc);
    }
  }
  return [...shown].sort(([a], [b]) => order(a, b));
}

/** Groups by name, with `(unassigned)`, `(small groups)` and `(no person)` last, as answers list them. */
const order = (a: string, b: string) => {
  const special = (g: string) => (g === UNASSIGNED || g === SMALL_GROUPS || g === NO_PERSON ? 1 : 0);
  return special(a) - special(b) || a.localeCompare(b);
};
