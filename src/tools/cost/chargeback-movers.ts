import type { DayRange } from '../../domain/dates.js';
import type { Directory } from '../../directory/directory.js';
import type { GroupBy } from '../../directory/group-by.js';
import { breakdownKey, identityOfPoint, type Breakdown, type CostEntry } from '../../insights/chargeback-lines.js';
import type { GroupByKey } from '../../contract/enums.js';
import { costAnalytics } from '../../upstream/endpoints/cost-analytics.js';
import { listAll } from '../../upstream/listing/list-all.js';
import { formatDay } from '../../util/utc-date.js';
import type { ToolContext } from '../types.js';
import { costQuery } from './cost-query.js';

/**
 * Whether an identity's primary group changes within a month's segments: only those are summed per segment (or
 * read by day). Someone who moved in March is summed whole in every other month; a move between two teams of one
 * cost center is no move for a chargeback by cost center.
 */
export function movedWithin(directory: Directory, segments: readonly DayRange[], by: GroupBy) {
  const days = segments.map((s) => formatDay(s.start));
  return (id: string) => {
    if (days.length < 2 || directory.sameEveryDay(id)) return false;
    const first = directory.primaryGroupOn(id, days[0]!, by);
    return days.some((day) => directory.primaryGroupOn(id, day, by) !== first);
  };
}

/**
 * The cost of a few identities by day and user (filtered, 100 at a time): each day in its own group; by model or
 * product too, with a breakdown.
 */
export async function moversByDay(
  ctx: ToolContext,
  days: DayRange,
  ids: readonly string[],
  breakdown?: Breakdown,
): Promise<Array<CostEntry & { id: string }>> {
  const batches: string[][] = [];
  for (let i = 0; i < ids.length; i += 100) batches.push(ids.slice(i, i + 100));
  const read = async (some: readonly string[]) => {
    const named = (kind: string) => some.filter((id) => id.startsWith(kind)).map((id) => id.slice(2));
    // A union of both lists; an empty one is left out (unset: no filtering).
    const [emails, accounts] = [named('u:'), named('s:')];
    const filters = {
      ...(emails.length ? { user_emails: emails } : {}),
      ...(accounts.length ? { service_account_names: accounts } : {}),
    };
    const query = costQuery({ granularity: 'day', filters }, breakdownKeys(breakdown));
    const entries: Array<CostEntry & { id: string }> = [];
    for (const p of (await listAll(ctx, costAnalytics, { days, ...query })).data) {
      const id = identityOfPoint(p);
      const { billed_amount_usd: billed, credits_consumed: credits } = p.cost_metrics;
      const key = breakdown ? { key: breakdownKey(p, breakdown) } : {};
      if (id !== null) entries.push({ id, day: p.start_date, billed, credits, ...key });
    }
    return entries;
  };
  // A few batches at a time: the scheduler keeps within the rate limits whatever the number.
  const out: Array<Array<CostEntry & { id: string }>> = [];
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < batches.length; i = next++) out[i] = await read(batches[i]!);
  };
  await Promise.all(Array.from({ length: Math.min(4, batches.length) }, worker));
  return out.flat();
}

/** The upstream keys of cost by person, and by the breakdown's model or product. */
export const breakdownKeys = (breakdown?: Breakdown): GroupByKey[] => [
  'COST_ANALYTICS_GROUP_BY_USER',
  ...(breakdown === 'model' ? (['COST_ANALYTICS_GROUP_BY_RESOURCE'] as const) : []),
  ...(breakdown === 'product' ? (['COST_ANALYTICS_GROUP_BY_PRODUCT'] as const) : []),
];
