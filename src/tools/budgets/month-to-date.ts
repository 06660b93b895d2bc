import type { BillingPlan } from '../../contract/enums.js';
import { costAnalytics } from '../../upstream/endpoints/cost-analytics.js';
import { creditUsageByUser } from '../../upstream/endpoints/credit-usage-by-user.js';
import type { Freshness } from '../../domain/freshness.js';
import { identityKey, type IdentityRef } from '../../upstream/listing/merge.js';
import { sumDecimals } from '../../domain/numbers.js';
import { dayFromMs, dayOfMonth, dayToMs, formatDay } from '../../util/utc-date.js';
import type { MonthSoFar, MonthUse } from './budget-projection.js';
import { arrives, beforeRefresh, latestCompleteDay } from '../shared/complete-days.js';
import { listAll } from '../../upstream/listing/list-all.js';
import type { ToolContext } from '../types.js';
import { identityFilters } from '../shared/rows.js';

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

/**
 * The UTC month of today, complete through `latest` (yesterday by default): its 1st, its length, the
 * month's complete days, and the first day after them.
 */
export function monthOf(today: number, latest = today - 1) {
  const first = today - (dayOfMonth(today) - 1);
  const d = new Date(dayToMs(today));
  const daysInMonth = dayFromMs(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1)) - first;
  const completeDays = Math.max(0, latest - first + 1);
  return { completeDays, daysInMonth, first, next: first + completeDays, start: formatDay(first) };
}

/** Above this many identities, cost is read for everyone rather than through a filter naming each. */
const FILTER_MAX = 1000;

/**
 * This UTC month's use of each identity, as its budget counts it: credits from credit usage (which
 * includes part of today), USD from cost analytics' billed amount by user (which stops at the latest
 * complete day: yesterday, or the day before until the refresh hour). `who`: the identities of interest;
 * cost is filtered to them, credit usage has no filter.
 */
export async function readMonthToDate(ctx: ToolContext, plan: BillingPlan, who: IdentityRef[]): Promise<MonthToDate> {
  const today = ctx.client.today();
  const use = new Map<string, MonthUse>();
  const at = (key: string) => use.get(key) ?? (use.set(key, { complete: '0', partial: '0' }), use.get(key)!);
  if (plan === 'credits') {
    const month = monthOf(today);
    const complete = month.completeDays > 0 ? { start: month.first, end: today - 1 } : undefined;
    const [before, now] = await Promise.all([
      complete ? listAll(ctx, creditUsageByUser, { days: complete }) : undefined,
      listAll(ctx, creditUsageByUser, { days: { start: today, end: today } }),
    ]);
    for (const r of before?.data ?? []) at(identityKey(r)).complete = String(r.credits_consumed);
    for (const r of now.data) at(identityKey(r)).partial = String(r.credits_consumed);
    return {
      ...month,
      partial: true,
      plan,
      places: 0,
      use,
      through: formatDay(today),
      includesToday: true,
      covers: `Credit usage ${month.start}..${formatDay(today)}, including today up to its last refresh (about every 90 minutes).`,
      freshness: [...(before ? [before.freshness] : []), now.freshness],
    };
  }
  const latest = latestCompleteDay(ctx);
  const month = monthOf(today, latest);
  const through = formatDay(latest);
  const filtered = who.length > 0 && who.length <= FILTER_MAX;
  const cost =
    month.completeDays > 0
      ? await listAll(ctx, costAnalytics, {
          days: { start: month.first, end: latest },
          group_by_keys: ['COST_ANALYTICS_GROUP_BY_USER'],
          granularity: 'COST_ANALYTICS_TIME_GRANULARITY_TOTAL',
          filters: filtered ? identityFilters(who) : {},
        })
      : undefined;
  for (const p of cost?.data ?? []) {
    const u = p.group_by_values.user_info;
    if (!u || (u.user_email === undefined && u.service_account_name === undefined)) continue;
    const row = at(identityKey(u));
    row.complete = sumDecimals([row.complete, p.cost_metrics.billed_amount_usd]);
  }
  const stops = beforeRefresh(latest, today)
    ? `${through}, the latest complete day (${arrives(ctx, latest)})`
    : 'yesterday';
  return {
    ...month,
    partial: false,
    plan,
    places: 2,
    use,
    through,
    includesToday: false,
    covers: cost
      ? `Billed USD from cost analytics ${month.start}..${through}: cost stops at ${stops}.`
      : `No cost yet this month: cost analytics stops at ${stops}.`,
    freshness: cost ? [cost.freshness] : [],
  };
}
