import { GROUP_BY_KEYS } from '../../contract/enums.js';
import { UserInputError } from '../../errors.js';
import { identityOfPoint } from '../../insights/chargeback-lines.js';
import { costAnalytics, type CostPoint } from '../../upstream/endpoints/cost-analytics.js';
import { listAll } from '../../upstream/listing/list-all.js';
import type { Listed } from '../shared/listing.js';
import { dayRangeOf, groupFigures, orgScope, partRows } from '../shared/org-groups.js';
import type { ToolContext } from '../types.js';
import { costQuery, groupKeys, resolvedFilters, SHORT, type CostFilters } from './cost-query.js';

const isUpstreamKey = (g: string) => g in SHORT || (GROUP_BY_KEYS as readonly string[]).includes(g);

export interface CostGroupSplit {
  /** The directory's grouping asked for (team, team:N or a column), if any. */
  org: string | undefined;
  /** The upstream keys the caller asked for. */
  upstream: string[];
  /** What is asked of the upstream: those, and the user when the directory groups or filters. */
  asked: string[];
}

/** Separates `group_by`'s directory key (at most one) from the upstream's keys. */
export function splitCostGroups(groupBy: string[] = [], teams?: string[]): CostGroupSplit {
  const org = groupBy.filter((g) => !isUpstreamKey(g));
  if (org.length > 1)
    throw new UserInputError(
      `group_by takes one directory grouping at a time (team, team:N or a column), not ${org.join(' and ')}`,
    );
  const upstream = groupBy.filter(isUpstreamKey);
  const needsUser = org.length > 0 || teams !== undefined;
  return { org: org[0], upstream, asked: needsUser ? [...new Set([...upstream, 'user'])] : upstream };
}

type CostArgs = { granularity: 'total' | 'day'; filters?: CostFilters; teams?: string[] | undefined };

/** The groups block of a cost answer grouped or filtered by the directory; undefined when it is neither. */
export async function costGroups(ctx: ToolContext, args: CostArgs, split: CostGroupSplit, listed: Listed<CostPoint>) {
  if (split.org !== undefined && !ctx.org && !/^team(:\d+)?$/.test(split.org))
    throw new UserInputError(
      `group_by "${split.org.slice(0, 60)}" is not known: use ${Object.keys(SHORT).join(', ')}; with a directory (--directory), also team, team:N or one of its columns`,
    );
  const scope = await orgScope(ctx, dayRangeOf(listed.start, listed.end), { group_by: split.org, teams: args.teams });
  if (!scope) return undefined;
  const by = scope.by ?? { kind: 'team' as const, depth: 1 };
  const keys = groupKeys(split.upstream);
  const query = costQuery(await resolvedFilters(ctx, args), groupKeys(split.asked));
  const parts = await partRows(
    scope,
    listed.rows,
    async (days) => (await listAll(ctx, costAnalytics, { days, ...query })).data,
  );
  return groupFigures(
    ctx,
    { ...scope, by },
    parts,
    identityOfPoint,
    (p) => ({ billed_amount_usd: p.cost_metrics.billed_amount_usd, credits_consumed: p.cost_metrics.credits_consumed }),
    {
      ...(args.granularity === 'day' ? { dayOf: (p: CostPoint) => p.start_date } : {}),
      suffixOf: (p) => suffixOf(p, keys, args.granularity === 'day'),
    },
  );
}

function suffixOf(p: CostPoint, keys: string[], byDay: boolean): string {
  const v = p.group_by_values;
  const parts = [
    byDay ? p.start_date : undefined,
    keys.includes('COST_ANALYTICS_GROUP_BY_PRODUCT') ? v.product_display_name : undefined,
    keys.includes('COST_ANALYTICS_GROUP_BY_RESOURCE') ? v.resource_display_name : undefined,
    keys.includes('COST_ANALYTICS_GROUP_BY_BYOK_STATUS') ? v.byok_status : undefined,
    keys.includes('COST_ANALYTICS_GROUP_BY_EXPERT') ? v.expert_info?.name : undefined,
  ];
  return parts.filter(Boolean).join(' · ');
}
