import { GROUP_BY_KEYS } from '../../contract/enums.js';
import { UserInputError } from '../../errors.js';
import { identityOfPoint } from '../../insights/chargeback-lines.js';
import { costAnalytics, type CostPoint } from '../../upstream/endpoints/cost-analytics.js';
import { NO_DIGESTS } from '../../upstream/history-port.js';
import { listAll } from '../../upstream/listing/list-all.js';
import { wantsRawPage, type Listed } from '../shared/listing.js';
import { partRows } from '../shared/org-groups.js';
import { groupFigures } from '../shared/group-figures.js';
import type { ToolContext } from '../types.js';
import { costQuery, groupKeys, resolvedFilters, SHORT } from './cost-query.js';
import { costScope, digestGroups, tidy, type CostArgs, type CostGroupSplit, type Groups } from './cost-team-scope.js';

const isUpstreamKey = (g: string) => g in SHORT || (GROUP_BY_KEYS as readonly string[]).includes(g);

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

/**
 * The listing of a cost question and its groups block. Grouped (or filtered) by the directory alone, unfiltered
 * and not a raw page, a team's figure (over the range or per day) is a sum of per-identity sums: the store's
 * digests answer it (with the listing's totals, not by user); else, or where the store lacks a day, the rows by
 * user do.
 */
export async function listedCost(
  ctx: ToolContext,
  args: CostArgs,
  split: CostGroupSplit,
  list: (asked: string[]) => Promise<Listed<CostPoint>>,
): Promise<{ listed: Listed<CostPoint>; groups: Groups | undefined }> {
  const filtered = Object.values(args.filters ?? {}).some((v) => v !== undefined && v.length > 0);
  const whole = !split.upstream.length && !filtered && !wantsRawPage(args);
  // Grouped by the directory only: filtered by teams alone, the answer's rows are the listing's by user.
  if (ctx.digests !== NO_DIGESTS && split.org !== undefined && whole) {
    const listed = await list(split.upstream);
    const groups = await digestGroups(ctx, args, split, listed);
    if (groups) return { listed, groups };
  }
  const listed = await list(split.asked);
  return { listed, groups: await costGroups(ctx, args, split, listed) };
}

/** The groups block of a cost answer grouped or filtered by the directory, from its rows by user. */
async function costGroups(ctx: ToolContext, args: CostArgs, split: CostGroupSplit, listed: Listed<CostPoint>) {
  const scope = await costScope(ctx, args, split, listed);
  if (!scope) return undefined;
  const by = scope.by;
  const keys = groupKeys(split.upstream);
  const query = costQuery(await resolvedFilters(ctx, args), groupKeys(split.asked));
  const parts = await partRows(
    scope,
    listed.rows,
    async (days) => (await listAll(ctx, costAnalytics, { days, ...query })).data,
  );
  const groups = groupFigures(
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
  return tidy(groups);
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
