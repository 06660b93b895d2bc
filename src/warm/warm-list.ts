import { UsageError, helpPointer } from '../config/cli-options.js';
import type { GroupByKey } from '../contract/enums.js';
import type { RateGroup } from '../contract/limits.js';
import { rangeArg } from '../tools/shared/inputs.js';
import type { AnalyticsClient, Answer, ListOptions } from '../upstream/client.js';
import { NAMED_RANGES, type NamedRange } from '../domain/dates.js';
import { costAnalytics } from '../upstream/endpoints/cost-analytics.js';
import { creditUsageByUser } from '../upstream/endpoints/credit-usage-by-user.js';
import { dailyUsage } from '../upstream/endpoints/daily-usage.js';
import { dauCount } from '../upstream/endpoints/dau-count.js';
import { userActivity } from '../upstream/endpoints/user-activity.js';

/** One answer to fetch ahead: a kind of question over a named range, e.g. user-activity:last_7_days. */
export interface WarmItem {
  name: string;
  /** The rate-limit group its requests go through: items of different groups can be fetched side by side. */
  group: RateGroup;
  fetch(client: AnalyticsClient, options: ListOptions): Promise<Answer<unknown[]>>;
}

type Fetch = (client: AnalyticsClient, range: NamedRange, options: ListOptions) => Promise<Answer<unknown[]>>;

/**
 * Each kind asks exactly what its tool asks with no arguments but the range (see src/tools/get-*.ts), so that
 * every page lands under the cache key the tool's own call looks up.
 */
const cost =
  (keys: GroupByKey[]): Fetch =>
  (client, range, options) =>
    client.list(
      costAnalytics,
      {
        ...rangeArg({ range }),
        group_by_keys: keys,
        granularity: 'COST_ANALYTICS_TIME_GRANULARITY_TOTAL',
        filters: {},
      },
      options,
    );

const KINDS: Record<string, { group: RateGroup; fetch: Fetch }> = {
  /** get_user_activity */
  'user-activity': { group: 'general', fetch: (c, range, o) => c.list(userActivity, rangeArg({ range }), o) },
  /** get_credit_usage (by user; by_date and by_model off) */
  'credit-usage': {
    group: 'credit-usage',
    fetch: (c, range, o) => c.list(creditUsageByUser, { ...rangeArg({ range }), by_date: false, by_model: false }, o),
  },
  /** get_cost_analytics, granularity total */
  cost: { group: 'cost-analytics', fetch: cost([]) },
  'cost-by-user': { group: 'cost-analytics', fetch: cost(['COST_ANALYTICS_GROUP_BY_USER']) },
  'cost-by-resource': { group: 'cost-analytics', fetch: cost(['COST_ANALYTICS_GROUP_BY_RESOURCE']) },
  'cost-by-product': { group: 'cost-analytics', fetch: cost(['COST_ANALYTICS_GROUP_BY_PRODUCT']) },
  /** get_active_user_counts */
  'dau-count': { group: 'general', fetch: (c, range, o) => c.list(dauCount, rangeArg({ range }), o) },
  /** get_daily_usage */
  'daily-usage': { group: 'general', fetch: (c, range, o) => c.list(dailyUsage, rangeArg({ range }), o) },
};

export const WARM_KINDS = Object.keys(KINDS);

/** What admins ask for most: fetched after each daily refresh unless --warm-list says otherwise. */
export const DEFAULT_WARM_LIST =
  'user-activity:last_7_days,user-activity:last_30_days,credit-usage:last_7_days,credit-usage:last_30_days,' +
  'cost-by-user:last_30_days,cost-by-resource:last_30_days,dau-count:last_90_days';

const SOURCE = '--warm-list / ANALYTICS_WARM_LIST';

/** Reads a comma-separated list of kind:range names; throws UsageError naming what is wrong and what is allowed. */
export function parseWarmList(text: string, command = 'org-analytics-mcp warm'): WarmItem[] {
  const names = [
    ...new Set(
      text
        .split(',')
        .map((n) => n.trim().toLowerCase())
        .filter(Boolean),
    ),
  ];
  if (names.length === 0) throw new UsageError(`${SOURCE} names nothing to fetch.\n${helpPointer(command)}`);
  return names.map((name) => {
    const [kind = '', range = '', extra] = name.split(':');
    const known = KINDS[kind];
    if (!known || !(NAMED_RANGES as readonly string[]).includes(range) || extra !== undefined) {
      throw new UsageError(
        `${SOURCE}: '${name}' is not kind:range.\n` +
          `  kinds: ${WARM_KINDS.join(', ')}\n  ranges: ${NAMED_RANGES.join(', ')}\n${helpPointer(command)}`,
      );
    }
    const { group, fetch } = known;
    return { name, group, fetch: (client, options) => fetch(client, range as NamedRange, options) };
  });
}

/** The list --warm-list or ANALYTICS_WARM_LIST names, or else the default one. */
export function warmListOf(text: string | undefined, command = 'org-analytics-mcp'): WarmItem[] {
  return parseWarmList(text?.trim() || DEFAULT_WARM_LIST, command);
}
