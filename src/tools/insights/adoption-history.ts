import type { DayRange } from '../../domain/dates.js';
import type { Freshness } from '../../domain/freshness.js';
import { dau } from '../../upstream/endpoints/dau.js';
import { userActivity } from '../../upstream/endpoints/user-activity.js';
import { listAll } from '../shared/listing.js';
import type { ToolContext } from '../types.js';
import { periodOf, type Granularity } from './adoption-periods.js';

/** Daily lists read at once. */
const BATCH = 7;
/** Days before the latest complete one where the store's daily lists may end (a sync not run yet today). */
const SLACK = 3;

/** People only: the lower-cased emails of rows that carry one (service accounts are left out). */
function emails(rows: ReadonlyArray<{ user_email?: string }>, into = new Set<string>()): Set<string> {
  for (const r of rows) if (r.user_email !== undefined) into.add(r.user_email.toLowerCase());
  return into;
}

/** The people active in `days`: one range query of user activity (a stored month is one block). */
export async function activeInRange(ctx: ToolContext, days: DayRange, freshness: Freshness[]): Promise<Set<string>> {
  const answer = await listAll(ctx, userActivity, { days });
  freshness.push(answer.freshness);
  return emails(answer.data);
}

/** The people active on each day of `days`: the daily active lists, smaller rows than user activity's. */
export async function activeByDay(ctx: ToolContext, days: DayRange, freshness: Freshness[]): Promise<Set<string>[]> {
  const out: Set<string>[] = [];
  for (let start = days.start; start <= days.end; start += BATCH) {
    const batch: number[] = [];
    for (let d = start; d < start + BATCH && d <= days.end; d++) batch.push(d);
    const lists = await Promise.all(batch.map((d) => listAll(ctx, dau, { days: { start: d, end: d } })));
    for (const list of lists) {
      freshness.push(list.freshness);
      out.push(emails(list.data));
    }
  }
  return out;
}

/**
 * The first day of the stored history a granularity is counted from, or null when the store holds none.
 * Weeks: the earliest day of the store's unbroken run of daily active lists that ends near the latest
 * complete day (found by halving, a day's list read per probe). Months: the first calendar month stored whole
 * (a month block, or every day of it), from the store's earliest day on.
 */
export async function historyStart(ctx: ToolContext, granularity: Granularity): Promise<number | null> {
  const { storedFrom, published } = ctx.client.days();
  if (storedFrom === undefined) return null;
  if (granularity === 'month') {
    let month = periodOf(storedFrom, 'month');
    if (month.start < storedFrom) month = periodOf(month.end + 1, 'month');
    for (; month.start <= published; month = periodOf(month.end + 1, 'month')) {
      const days = { start: month.start, end: Math.min(month.end, published) };
      if (await ctx.client.stored(userActivity, { days })) return month.start;
    }
    return null;
  }
  const held = (d: number) => ctx.client.stored(dau, { days: { start: d, end: d } });
  let top: number | undefined;
  for (let d = published; d >= published - SLACK && d >= storedFrom && top === undefined; d--)
    if (await held(d)) top = d;
  if (top === undefined) return null;
  let [lo, hi] = [storedFrom, top];
  while (lo < hi) {
    const mid = Math.floor((lo + hi) / 2);
    if (await held(mid)) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}
