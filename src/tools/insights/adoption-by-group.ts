import type { Counts } from '../../insights/adoption-counts.js';
import { peopleOf } from '../../insights/adoption-history.js';
import type { Bits } from '../../insights/people-bits.js';
import { formatDay } from '../../util/utc-date.js';
import { orgScope } from '../shared/org-groups.js';
import { groupFigures } from '../shared/group-figures.js';
import type { ToolContext } from '../types.js';

const has = (set: Bits | null, i: number) =>
  set !== null && i >>> 5 < set.length && (set[i >>> 5]! & (1 << (i & 31))) !== 0;

/**
 * Adoption per group (issue 34): each period's people behind its figures (active, new, returning, retained),
 * each person in their groups on the period's last day counted, as `<start_date>:<figure>` values. The total
 * counts each person once, so that with no one in two groups the groups add up to it. Undefined without
 * group_by or teams; `teams` alone groups by the top level.
 */
export async function adoptionGroups(
  ctx: ToolContext,
  args: { group_by?: string | undefined; teams?: string[] | undefined },
  counts: Counts,
  end: number,
) {
  const sets = counts.sets;
  const range = sets.length ? { start: sets[0]!.days.start, end: sets.at(-1)!.days.end } : { start: end, end };
  const scope = await orgScope(ctx, range, args);
  if (!scope) return undefined;
  const emails = peopleOf(ctx).emails();
  const parts = sets.map((s, k) => {
    const p = counts.periods[k]!.start_date;
    const day = formatDay(s.days.end);
    const rows: Array<{ id: string; day: string; values: Record<string, number> }> = [];
    for (let w = 0; w < s.active.length; w++)
      for (let word = s.active[w]!; word !== 0; word &= word - 1) {
        const i = w * 32 + (31 - Math.clz32(word & -word));
        const values: Record<string, number> = { [`${p}:active`]: 1 };
        if (s.fresh) values[`${p}:new`] = has(s.fresh, i) ? 1 : 0;
        if (s.returning) values[`${p}:returning`] = has(s.returning, i) ? 1 : 0;
        if (s.retained) values[`${p}:retained`] = has(s.retained, i) ? 1 : 0;
        rows.push({ id: `u:${emails[i]!}`, day, values });
      }
    return { part: s.days, rows };
  });
  return groupFigures(
    ctx,
    { ...scope, by: scope.by ?? { kind: 'team', depth: 1 } },
    parts,
    (r) => r.id,
    (r) => r.values,
    { dayOf: (r) => r.day },
  );
}
