import { GROUP_BY_KEYS } from '../../contract/enums.js';
import { tidyDecimal } from '../../domain/numbers.js';
import { UserInputError } from '../../errors.js';
import { identityOfPoint } from '../../insights/chargeback-lines.js';
import { costByIdentity, type CostSum } from '../../insights/digest-cost.js';
import { costAnalytics, type CostPoint } from '../../upstream/endpoints/cost-analytics.js';
import { NO_DIGESTS } from '../../upstream/history-port.js';
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
type Groups = ReturnType<typeof groupFigures>;

/**
 * The listing of a cost question and its groups block. Grouped by the directory alone, over the whole range and
 * unfiltered, a team's figure is a sum of per-identity sums: the store's digests answer it (with the listing's
 * totals, not by user); else, or where the store lacks a day, the rows by user do.
 */
export async function listedCost(
  ctx: ToolContext,
  args: CostArgs,
  split: CostGroupSplit,
  list: (asked: string[]) => Promise<Listed<CostPoint>>,
): Promise<{ listed: Listed<CostPoint>; groups: Groups | undefined }> {
  const filtered = Object.values(args.filters ?? {}).some((v) => v !== undefined && v.length > 0);
  const stored = ctx.digests !== NO_DIGESTS;
  if (stored && split.org !== undefined && !split.upstream.length && args.granularity === 'total' && !filtered) {
    const listed = await list(split.upstream);
    const groups = await digestGroups(ctx, args, split, listed);
    if (groups) return { listed, groups };
  }
  const listed = await list(split.asked);
  return { listed, groups: await costGroups(ctx, args, split, listed) };
}

/** The directory's scope of a cost question, its grouping known; undefined when it neither groups nor filters. */
async function costScope(ctx: ToolContext, args: CostArgs, split: CostGroupSplit, listed: Listed<CostPoint>) {
  if (split.org !== undefined && !ctx.org && !/^team(:\d+)?$/.test(split.org))
    throw new UserInputError(
      `group_by "${split.org.slice(0, 60)}" is not known: use ${Object.keys(SHORT).join(', ')}; with a directory (--directory), also team, team:N or one of its columns`,
    );
  const scope = await orgScope(ctx, dayRangeOf(listed.start, listed.end), { group_by: split.org, teams: args.teams });
  return scope && { ...scope, by: scope.by ?? { kind: 'team' as const, depth: 1 } };
}

/**
 * Groups from per-identity sums of the store's digests: over the whole range for whoever's teams are the same
 * every day, per part for the others (a part's first day gives its teams). Undefined when a part is not stored.
 */
async function digestGroups(ctx: ToolContext, args: CostArgs, split: CostGroupSplit, listed: Listed<CostPoint>) {
  const scope = await costScope(ctx, args, split, listed);
  if (!scope) return undefined;
  const directory = scope.view.directory;
  const segments = scope.parts.map((days) => ({ days, bucket: 0 }));
  const sums = await costByIdentity(ctx, segments, (id) => !directory.sameEveryDay(id));
  if (!sums) return undefined;
  type Sum = { id: string | null } & CostSum;
  const parts = sums.map((s, i) => {
    const rows: Sum[] = [...s.ids].map(([id, sum]) => ({ id, ...sum }));
    if (s.rest) rows.push({ id: null, ...s.rest });
    return { part: scope.parts[i]!, rows };
  });
  const values = (r: Sum) => ({ billed_amount_usd: r.billed, credits_consumed: r.credits });
  return tidy(groupFigures(ctx, scope, parts, (r) => r.id, values));
}

/** Amounts as the upstream writes them ("1.50" → "1.50", "1.500000" → "1.50"): alike whichever path summed them. */
function tidy(groups: Groups): Groups {
  const values = (v: Groups['total']['values']) =>
    Object.fromEntries(Object.entries(v).map(([k, x]) => [k, typeof x === 'string' ? tidyDecimal(x) : x]));
  return {
    ...groups,
    rows: groups.rows.map((r) => ({ ...r, values: values(r.values) })),
    total: { ...groups.total, values: values(groups.total.values) },
  };
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
