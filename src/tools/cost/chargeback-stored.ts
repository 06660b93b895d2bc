import type { DayRange } from '../../domain/dates.js';
import type { Directory } from '../../directory/directory.js';
import type { GroupBy } from '../../directory/group-by.js';
import { identityOfPoint, linesOf, type ChargebackLine, type CostEntry } from '../../insights/chargeback-lines.js';
import { costAnalytics } from '../../upstream/endpoints/cost-analytics.js';
import { listAll } from '../../upstream/listing/list-all.js';
import { costQuery } from './cost-query.js';
import { costByIdentity, type SegmentSums } from '../../insights/digest-cost.js';
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
 * Chargeback lines without a breakdown from the store's digests, a month at a time: each identity's cost summed
 * per month, or per segment of it (one month, one directory) for whoever's teams change with the day, goes to its
 * primary group of the segment's first day, as each of its days' would. Null when the store lacks a month (or the
 * credits beside billed USD): the rows by day answer then.
 */
export async function storedLines(ctx: ToolContext, scope: OrgScope, by: GroupBy): Promise<ChargebackLine[] | null> {
  if (ctx.digests === NO_DIGESTS) return null;
  const directory = scope.view.directory;
  const months = new Map<string, DayRange[]>();
  for (const days of monthSegments(scope.parts)) {
    const month = formatDay(days.start).slice(0, 7);
    (months.get(month) ?? months.set(month, []).get(month)!).push(days);
  }
  const entries: CostEntry[] = [];
  for (const segments of months.values()) {
    const got = await monthEntries(ctx, segments, movedWithin(directory, segments, by));
    if (!got) return null;
    entries.push(...got);
  }
  return linesOf(entries, (id, day) => directory.primaryGroupOn(id, day, by));
}

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

/** One month's cost entries: from the digests of its segments, else from the month's and, for movers, by day. */
async function monthEntries(
  ctx: ToolContext,
  segments: readonly DayRange[],
  apart: (identity: string) => boolean,
): Promise<CostEntry[] | null> {
  const sums = await costByIdentity(
    ctx,
    segments.map((days) => ({ days, bucket: 0 })),
    apart,
  );
  if (sums) return entriesOf(sums, segments);
  if (segments.length === 1) return null;
  // Only the month is stored, not its days: everyone else's month is summed, whoever moved in it is read by day.
  const month = { start: segments[0]!.start, end: segments.at(-1)!.end };
  const whole = await costByIdentity(ctx, [{ days: month, bucket: 0 }], () => false);
  if (!whole) return null;
  const movers = [...whole[0]!.ids.keys()].filter(apart);
  for (const id of movers) whole[0]!.ids.delete(id);
  return [...entriesOf(whole, [month]), ...(await daysOf(ctx, month, movers))];
}

function entriesOf(sums: readonly SegmentSums[], segments: readonly DayRange[]): CostEntry[] {
  const entries: CostEntry[] = [];
  for (const [i, s] of sums.entries()) {
    const day = formatDay(segments[i]!.start);
    for (const [id, sum] of s.ids) entries.push({ id, day, ...sum });
    if (s.rest) entries.push({ id: null, day, ...s.rest });
  }
  return entries;
}

/** The cost of a few identities by day and user (filtered, 100 at a time): each day in its own group. */
async function daysOf(ctx: ToolContext, days: DayRange, ids: readonly string[]): Promise<CostEntry[]> {
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
    const query = costQuery({ granularity: 'day', filters }, ['COST_ANALYTICS_GROUP_BY_USER']);
    const entries: CostEntry[] = [];
    for (const p of (await listAll(ctx, costAnalytics, { days, ...query })).data) {
      const id = identityOfPoint(p);
      const { billed_amount_usd: billed, credits_consumed: credits } = p.cost_metrics;
      if (id !== null) entries.push({ id, day: p.start_date, billed, credits });
    }
    return entries;
  };
  // A few batches at a time: the scheduler keeps within the rate limits whatever the number.
  const out: CostEntry[][] = [];
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < batches.length; i = next++) out[i] = await read(batches[i]!);
  };
  await Promise.all(Array.from({ length: Math.min(4, batches.length) }, worker));
  return out.flat();
}
