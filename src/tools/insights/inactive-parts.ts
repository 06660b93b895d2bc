import type { DayRange } from '../../domain/dates.js';
import type { Freshness } from '../../domain/freshness.js';
import { formatDay } from '../../util/utc-date.js';
import { dau } from '../../upstream/endpoints/dau.js';
import { getUserBudgetOverrides } from '../../upstream/endpoints/get-user-budget-overrides.js';
import { identityKey } from '../../upstream/listing/merge.js';
import { shortResource } from '../budget/budget-resources.js';
import { listAll } from '../shared/listing.js';
import type { ToolContext } from '../types.js';

/** Days listed at once while walking back through the stored daily active lists. */
const BATCH = 7;

/**
 * The last active day of each identity in `keys`, from the stored daily active lists of `period`, newest
 * first; null when the store does not hold every day of the period (a list per day is too dear to fetch live).
 */
export async function lastActiveDays(
  ctx: ToolContext,
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
  ctx: ToolContext,
): Promise<{ byKey: Map<string, { resource: string; limit: string }>; freshness: Freshness }> {
  const { value, freshness } = await ctx.client.call(getUserBudgetOverrides, {}, ctx.signal);
  const byKey = new Map(
    value.overrides
      .filter((o) => o.config.limit !== '')
      .map((o) => [identityKey(o), { resource: shortResource(o.resource), limit: o.config.limit }] as const),
  );
  return { byKey, freshness };
}
