import type { DayRange } from '../../domain/dates.js';
import type { GroupBy } from '../../directory/group-by.js';
import { GROUP_BY_KEYS } from '../../contract/enums.js';
import type { FreshnessOut } from '../../format/freshness.js';
import {
  chargebackLines,
  linesOf,
  type Breakdown,
  type ChargebackLine,
  type CostEntry,
} from '../../insights/chargeback-lines.js';
import { costAnalytics, type CostPoint } from '../../upstream/endpoints/cost-analytics.js';
import { listAll } from '../../upstream/listing/list-all.js';
import { listRows } from '../shared/listing.js';
import { costQuery } from './cost-query.js';
import { costByIdentity } from '../../insights/digest-cost.js';
import { NO_DIGESTS } from '../../upstream/history-port.js';
import { formatDay } from '../../util/utc-date.js';
import type { OrgScope } from '../shared/org-groups.js';
import type { ToolContext } from '../types.js';
import { calendarMonthOf } from './chargeback-months.js';

/** The parts of the range where the directory is constant, each cut again where a month ends. */
export function monthSegments(parts: readonly DayRange[]): DayRange[] {
  const out: DayRange[] = [];
  for (const part of parts)
    for (let start = part.start; start <= part.end;) {
      const end = Math.min(part.end, calendarMonthOf(start).end);
      out.push({ start, end });
      start = end + 1;
    }
  return out;
}

/**
 * Chargeback lines without a breakdown from the store's digests: each identity's cost summed per month, or per
 * segment of it (one month, one directory) for whoever's teams change with the day, goes to its primary group of
 * the segment's first day, as each of its days' would. Null when the store lacks a day of them (or the credits
 * beside billed USD): the rows by day answer then.
 */
export async function storedLines(ctx: ToolContext, scope: OrgScope, by: GroupBy): Promise<ChargebackLine[] | null> {
  if (ctx.digests === NO_DIGESTS) return null;
  const directory = scope.view.directory;
  const months: string[] = [];
  const segments = monthSegments(scope.parts).map((days) => {
    const month = formatDay(days.start).slice(0, 7);
    if (months.at(-1) !== month) months.push(month);
    return { days, bucket: months.length - 1 };
  });
  const sums = await costByIdentity(ctx, segments, (id) => !directory.sameEveryDay(id));
  if (!sums) return null;
  const entries: CostEntry[] = [];
  for (const [i, s] of sums.entries()) {
    const day = formatDay(segments[i]!.days.start);
    for (const [id, sum] of s.ids) entries.push({ id, day, ...sum });
    if (s.rest) entries.push({ id: null, day, ...s.rest });
  }
  return linesOf(entries, (id, day) => directory.primaryGroupOn(id, day, by));
}

/**
 * A chargeback's lines, its cost in all over the months, and the freshness of what answered: without a breakdown
 * from the store's digests where it holds every day, else from cost by day and every key, asked exactly as the
 * history store keeps it, so that it answers when it holds them.
 */
export async function chargebackCost(
  ctx: ToolContext,
  scope: OrgScope,
  by: GroupBy,
  args: { breakdown?: Breakdown | undefined },
): Promise<{ all: ChargebackLine[]; listed: { published: FreshnessOut }; whole: CostPoint[] }> {
  const days = { start: scope.parts[0]!.start, end: scope.parts.at(-1)!.end };
  const totalQuery = { days, ...costQuery({ granularity: 'total' }, []) };
  const stored = args.breakdown ? null : await storedLines(ctx, scope, by);
  if (stored) {
    const totals = await listRows(ctx, costAnalytics, totalQuery, {});
    return { all: stored, listed: totals, whole: totals.rows };
  }
  const query = costQuery({ granularity: 'day' }, [...GROUP_BY_KEYS]);
  const [byDay, totals] = await Promise.all([
    listRows(ctx, costAnalytics, { days, ...query }, {}),
    listAll(ctx, costAnalytics, totalQuery),
  ]);
  const directory = scope.view.directory;
  const all = chargebackLines(byDay.rows, (id, day) => directory.primaryGroupOn(id, day, by), args.breakdown);
  return { all, listed: byDay, whole: totals.data };
}
