import type { BillingPlan } from '../contract/enums.js';
import { costAnalytics } from '../upstream/endpoints/cost-analytics.js';
import { creditUsageByUser } from '../upstream/endpoints/credit-usage-by-user.js';
import type { Freshness } from '../upstream/freshness.js';
import { identityKey, type IdentityRef } from '../upstream/merge.js';
import { sumDecimals } from '../upstream/numbers.js';
import { dayFromMs, dayOfMonth, dayToMs, formatDay } from '../util/utc-date.js';
import type { MonthSoFar, MonthUse } from './budget-projection.js';
import { listAll } from './listing.js';
import type { ToolContext } from './types.js';

/** Month-to-date use per identity key, where it was read from, and how far it reaches. */
export interface MonthToDate extends MonthSoFar {
  plan: BillingPlan;
  use: Map<string, MonthUse>;
  start: string;
  through: string;
  includesToday: boolean;
  /** What the month-to-date covers, in words. */
  covers: string;
  freshness: Freshness[];
}

/** The UTC month of a day: its 1st, its length, and the complete days before the day. */
export function monthOf(today: number) {
  const completeDays = dayOfMonth(today) - 1;
  const d = new Date(dayToMs(today));
  const daysInMonth = dayFromMs(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1)) - (today - completeDays);
  return { completeDays, daysInMonth, today, start: formatDay(today - completeDays) };
}

/** Above this many identities, cost is read for everyone rather than through a filter naming each. */
const FILTER_MAX = 1000;

/**
 * This UTC month's use of each identity, as its budget counts it: credits from credit usage (which
 * includes part of today), USD from cost analytics' billed amount by user (which stops at yesterday).
 * `who`: the identities of interest; cost is filtered to them, credit usage has no filter.
 */
export async function readMonthToDate(ctx: ToolContext, plan: BillingPlan, who: IdentityRef[]): Promise<MonthToDate> {
  const today = ctx.client.today();
  const month = monthOf(today);
  const { completeDays } = month;
  const first = today - completeDays;
  const complete = completeDays > 0 ? { start_date: formatDay(first), end_date: formatDay(today - 1) } : undefined;
  const use = new Map<string, MonthUse>();
  const at = (key: string) => use.get(key) ?? (use.set(key, { throughYesterday: '0', today: '0' }), use.get(key)!);
  if (plan === 'credits') {
    const [before, now] = await Promise.all([
      complete ? listAll(ctx, creditUsageByUser, complete) : undefined,
      listAll(ctx, creditUsageByUser, { start_date: formatDay(today), end_date: formatDay(today) }),
    ]);
    for (const r of before?.data ?? []) at(identityKey(r)).throughYesterday = String(r.credits_consumed);
    for (const r of now.data) at(identityKey(r)).today = String(r.credits_consumed);
    return {
      ...month,
      plan,
      places: 0,
      use,
      through: formatDay(today),
      includesToday: true,
      covers: `Credit usage ${month.start}..${formatDay(today)}, including today up to its last refresh (about every 90 minutes).`,
      freshness: [...(before ? [before.freshness] : []), now.freshness],
    };
  }
  const filtered = who.length > 0 && who.length <= FILTER_MAX;
  const cost = complete
    ? await listAll(ctx, costAnalytics, {
        ...complete,
        group_by_keys: ['COST_ANALYTICS_GROUP_BY_USER'],
        granularity: 'COST_ANALYTICS_TIME_GRANULARITY_TOTAL',
        filters: filtered
          ? {
              user_emails: who.flatMap((w) => (w.user_email ? [w.user_email] : [])),
              service_account_names: who.flatMap((w) => (w.service_account_name ? [w.service_account_name] : [])),
            }
          : {},
      })
    : undefined;
  for (const p of cost?.data ?? []) {
    const u = p.group_by_values.user_info;
    if (!u || (u.user_email === undefined && u.service_account_name === undefined)) continue;
    const row = at(identityKey(u));
    row.throughYesterday = sumDecimals([row.throughYesterday, p.cost_metrics.billed_amount_usd]);
  }
  return {
    ...month,
    plan,
    places: 2,
    use,
    through: formatDay(today - 1),
    includesToday: false,
    covers: complete
      ? `Billed USD from cost analytics ${month.start}..${formatDay(today - 1)}: cost stops at yesterday.`
      : 'No cost yet: cost analytics stops at yesterday, and today is the 1st.',
    freshness: cost ? [cost.freshness] : [],
  };
}
