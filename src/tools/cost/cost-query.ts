import type { GroupByKey } from '../../contract/enums.js';
import type { DayRange } from '../../domain/dates.js';
import { costAnalytics, type CostPoint, type CostQuery } from '../../upstream/endpoints/cost-analytics.js';
import { divideDecimals } from '../../domain/numbers.js';
import { moverMap } from '../shared/compare.js';
import { MONEY } from './cost-rows.js';
import { assertServiceAccountName } from '../../privacy/identity-format.js';
import { listAll } from '../../upstream/listing/list-all.js';
import type { ToolContext } from '../types.js';

/** The short group-by names; the full COST_ANALYTICS_GROUP_BY_* ones are accepted too. */
export const SHORT = {
  product: 'COST_ANALYTICS_GROUP_BY_PRODUCT',
  resource: 'COST_ANALYTICS_GROUP_BY_RESOURCE',
  user: 'COST_ANALYTICS_GROUP_BY_USER',
  byok_status: 'COST_ANALYTICS_GROUP_BY_BYOK_STATUS',
  expert: 'COST_ANALYTICS_GROUP_BY_EXPERT',
} as const;

export const groupKeys = (groupBy: string[] = []) => [
  ...new Set(groupBy.map((g) => (g in SHORT ? SHORT[g as keyof typeof SHORT] : (g as GroupByKey)))),
];

export type CostFilters = Partial<
  Record<'user_emails' | 'service_account_names' | 'product_names' | 'resource_names' | 'expert_ids', string[]>
>;

/** The arguments with the filters' names resolved: pseudonyms to emails, service account names checked. */
export async function resolvedFilters<A extends { filters?: CostFilters }>(ctx: ToolContext, args: A): Promise<A> {
  const f = args.filters ?? {};
  const filters = {
    ...f,
    ...(f.user_emails ? { user_emails: await Promise.all(f.user_emails.map((e) => ctx.resolveEmail(e))) } : {}),
    ...(f.service_account_names
      ? { service_account_names: f.service_account_names.map(assertServiceAccountName) }
      : {}),
  };
  return { ...args, filters };
}

/** The upstream query the arguments ask for (filters resolved already): group keys, granularity, and filters. */
export function costQuery(
  args: { granularity: 'total' | 'day'; filters?: CostFilters },
  groupBy: GroupByKey[],
): CostQuery {
  return {
    group_by_keys: groupBy,
    granularity:
      args.granularity === 'day' ? 'COST_ANALYTICS_TIME_GRANULARITY_DAY' : 'COST_ANALYTICS_TIME_GRANULARITY_TOTAL',
    filters: args.filters ?? {},
  };
}

type MoverArgs = { group_by?: string[]; sort_by: string; granularity: 'total' | 'day'; filters?: CostFilters };

/** Grouped by user: who rose and fell the most, by the sorted figure (billed USD when sorted by date). */
export const costMovers = {
  by: (args: MoverArgs) =>
    groupKeys(args.group_by).includes('COST_ANALYTICS_GROUP_BY_USER')
      ? args.sort_by === 'date'
        ? 'billed_amount_usd'
        : args.sort_by
      : undefined,
  async read(ctx: ToolContext, args: MoverArgs, period: DayRange) {
    const by = (args.sort_by === 'date' ? 'billed_amount_usd' : args.sort_by) as keyof CostPoint['cost_metrics'];
    const query = costQuery(await resolvedFilters(ctx, { ...args, granularity: 'total' }), [
      'COST_ANALYTICS_GROUP_BY_USER',
    ]);
    const points = (await listAll(ctx, costAnalytics, { days: period, ...query })).data;
    // Bots and deleted accounts have no identity a mover can name: they stay in the totals only.
    const named = points.flatMap((p) => {
      const u = p.group_by_values.user_info;
      return u?.user_email !== undefined || u?.service_account_name !== undefined
        ? [{ user_email: u.user_email, service_account_name: u.service_account_name, value: p.cost_metrics[by] }]
        : [];
    });
    // Money to the cent, as shown; credits and tokens as they are.
    return moverMap(named, (r) =>
      (MONEY as readonly string[]).includes(by) ? divideDecimals(String(r.value), '1', 2)! : r.value,
    );
  },
};
