import type { DayRange } from '../../domain/dates.js';
import { identityOfPoint } from '../../insights/chargeback-lines.js';
import { costAnalytics } from '../../upstream/endpoints/cost-analytics.js';
import { userActivity, type UserActivity } from '../../upstream/endpoints/user-activity.js';
import { listAll } from '../../upstream/listing/list-all.js';
import { identityKey } from '../../upstream/listing/merge.js';
import { inScope, orgScope, partRows } from '../shared/org-groups.js';
import { groupFigures } from '../shared/group-figures.js';
import type { ToolContext } from '../types.js';

type Activity = UserActivity['users'][number];

/**
 * The overview's per-person figures by group (issue 34): active days, messages and lines from user activity,
 * billed USD and credits from cost by person, each part of the range with that part's teams. `(no person)`
 * holds the cost of no identity, so that the groups add up to the overview's cost. Undefined without group_by
 * or teams; `teams` alone groups by the top level. `keeps`: whether an identity is in the teams asked for.
 */
export async function overviewGroups(
  ctx: ToolContext,
  args: { group_by?: string | undefined; teams?: string[] | undefined },
  period: DayRange,
  activity: readonly Activity[],
) {
  const scope = await orgScope(ctx, period, args);
  if (!scope) return undefined;
  const costOf = async (days: DayRange) =>
    (
      await listAll(ctx, costAnalytics, {
        days,
        group_by_keys: ['COST_ANALYTICS_GROUP_BY_USER'],
        granularity: 'COST_ANALYTICS_TIME_GRANULARITY_TOTAL',
      })
    ).data;
  const [people, cost] = await Promise.all([
    partRows(scope, activity, async (days) => (await listAll(ctx, userActivity, { days })).data),
    Promise.all(scope.parts.map(async (part) => ({ part, rows: await costOf(part) }))),
  ]);
  type Row = { id: string | null; values: Record<string, number | string> };
  const parts = people.map(({ part, rows }, i) => ({
    part,
    rows: [
      ...rows.map((u): Row => ({
        id: identityKey(u),
        values: {
          active_days: u.active_days,
          total_messages: u.metrics.total_messages,
          total_modified_lines_of_code: u.metrics.total_modified_lines_of_code,
        },
      })),
      ...cost[i]!.rows.map((p): Row => ({
        id: identityOfPoint(p),
        values: {
          billed_amount_usd: p.cost_metrics.billed_amount_usd,
          credits_consumed: p.cost_metrics.credits_consumed,
        },
      })),
    ],
  }));
  const groups = groupFigures(
    ctx,
    { ...scope, by: scope.by ?? { kind: 'team', depth: 1 } },
    parts,
    (r) => r.id,
    (r) => r.values,
  );
  return { groups, keeps: (id: string) => scope.parts.some((p) => inScope(scope, id, p)) };
}
