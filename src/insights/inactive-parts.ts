import type { DayRange } from '../domain/dates.js';
import type { Freshness } from '../domain/freshness.js';
import { formatDay } from '../util/utc-date.js';
import { dau } from '../upstream/endpoints/dau.js';
import { getUserBudgetOverrides } from '../upstream/endpoints/get-user-budget-overrides.js';
import { identityKey, type IdentityRef } from '../upstream/listing/merge.js';
import { shortResource } from '../domain/budget-resources.js';
import { listAll, type ListReader } from '../upstream/listing/list-all.js';
import { creditUsageByUser } from '../upstream/endpoints/credit-usage-by-user.js';
import { userActivity } from '../upstream/endpoints/user-activity.js';
import type { Gone, Periods } from './inactive-stored.js';

/** Days listed at once while walking back through the stored daily active lists. */
const BATCH = 7;

/**
 * The last active day of each identity in `keys`, from the stored daily active lists of `period`, newest
 * first; null when the store does not hold every day of the period (a list per day is too dear to fetch live).
 */
async function lastActiveDays(
  ctx: ListReader,
  keys: ReadonlySet<string>,
  period: DayRange,
): Promise<{ last: Map<string, string> | null; freshness: Freshness[] }> {
  if (keys.size === 0) return { last: new Map(), freshness: [] };
  if (!(await ctx.client.stored(dau, { days: period }))) return { last: null, freshness: [] };
  const last = new Map<string, string>();
  const freshness: Freshness[] = [];
  for (let end = period.end; end >= period.start && last.size < keys.size; end -= BATCH) {
    const days: number[] = [];
    for (let d = end; d > end - BATCH && d >= period.start; d--) days.push(d);
    const lists = await Promise.all(days.map((d) => listAll(ctx, dau, { days: { start: d, end: d } })));
    lists.forEach((list, i) => {
      freshness.push(list.freshness);
      for (const row of list.data) {
        const key = identityKey(row);
        if (keys.has(key) && !last.has(key)) last.set(key, formatDay(days[i]!));
      }
    });
  }
  return { last, freshness };
}

/** Every budget override, by identity key: one request, whatever the number of people. */
export async function budgetOverrides(
  ctx: ListReader,
): Promise<{ byKey: Map<string, { resource: string; limit: string }>; freshness: Freshness }> {
  const { value, freshness } = await ctx.client.call(getUserBudgetOverrides, {}, ctx.signal);
  const byKey = new Map(
    value.overrides
      .filter((o) => o.config.limit !== '')
      .map((o) => [identityKey(o), { resource: shortResource(o.resource), limit: o.config.limit }] as const),
  );
  return { byKey, freshness };
}

/**
 * The inactive from the listings: user activity before and in the inactive days, credits over the lookback,
 * and the last active day from the stored daily lists (null without them).
 */
export async function goneLive(
  ctx: ListReader,
  { lookback, before, recent }: Periods,
  match: ((r: IdentityRef) => boolean) | undefined,
): Promise<{ gone: Gone[]; lastKnown: boolean; freshness: Freshness[] }> {
  const [earlier, latest, credits] = await Promise.all([
    listAll(ctx, userActivity, { days: before }),
    listAll(ctx, userActivity, { days: recent }),
    listAll(ctx, creditUsageByUser, { days: lookback }),
  ]);
  const activeNow = new Set(latest.data.map(identityKey));
  const gone = earlier.data.filter((r) => !activeNow.has(identityKey(r)) && (!match || match(r)));
  const keys = new Set(gone.map(identityKey));
  const creditsOf = new Map<string, number>();
  for (const r of credits.data) {
    const key = identityKey(r);
    if (keys.has(key)) creditsOf.set(key, (creditsOf.get(key) ?? 0) + r.credits_consumed);
  }
  const last = await lastActiveDays(ctx, keys, before);
  return {
    gone: gone.map((r) => {
      const key = identityKey(r);
      const row =
        r.user_email !== undefined ? { user_email: r.user_email } : { service_account_name: r.service_account_name! };
      return {
        row,
        last_active_date: last.last ? (last.last.get(key) ?? null) : null,
        active_days: r.active_days,
        credits: creditsOf.get(key) ?? 0,
      };
    }),
    lastKnown: last.last !== null,
    freshness: [earlier.freshness, latest.freshness, credits.freshness, ...last.freshness],
  };
}
