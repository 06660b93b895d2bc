import { formatDay } from '../../util/utc-date.js';
import { orgScope } from '../shared/org-groups.js';
import { groupFigures } from '../shared/group-figures.js';
import type { ToolContext } from '../types.js';

interface StatusRow {
  user: string;
  kind: 'user' | 'service_account';
  limit: string | null;
  used: string | null;
}

const keyOf = (r: StatusRow) => (r.kind === 'user' ? `u:${r.user.toLowerCase()}` : `s:${r.user}`);

/**
 * Budget rows kept to the `teams` asked for, and per group the members with their limits and use summed
 * exactly. Budgets are per person now, so membership is today's.
 */
export async function budgetsByTeam<R extends StatusRow>(
  ctx: ToolContext,
  rows: readonly R[],
  args: { group_by?: string | undefined; teams?: string[] | undefined },
) {
  const today = ctx.client.today();
  const scope = await orgScope(ctx, { start: today, end: today }, args);
  if (!scope) return { kept: [...rows], groups: undefined };
  const day = formatDay(today);
  const kept = scope.teams ? rows.filter((r) => scope.view.directory.inTeams(keyOf(r), day, scope.teams!)) : [...rows];
  if (!scope.by) return { kept, groups: undefined };
  const values = (r: R) => ({
    // A cleared limit ("") and no override (null) limit nothing: they add nothing to the sum.
    limit: r.limit ? r.limit : '0',
    used: r.used ?? '0',
  });
  const part = { start: today, end: today };
  return { kept, groups: groupFigures(ctx, { ...scope, by: scope.by }, [{ part, rows: kept }], keyOf, values) };
}
