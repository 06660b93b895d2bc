import type { DayRange } from '../../domain/dates.js';
import type { GroupBy } from '../../directory/group-by.js';
import { NO_PERSON, type ChargebackLine } from '../../insights/chargeback-lines.js';
import { costUnits, type SegmentUnits } from '../../insights/digest-cost.js';
import { LineSums } from './chargeback-sums.js';
import { movedWithin, moversByDay } from './chargeback-movers.js';
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

/** The segments of each month (`YYYY-MM`), in order. */
export function monthsOf(parts: readonly DayRange[]): Map<string, DayRange[]> {
  const months = new Map<string, DayRange[]>();
  for (const days of monthSegments(parts)) {
    const month = formatDay(days.start).slice(0, 7);
    (months.get(month) ?? months.set(month, []).get(month)!).push(days);
  }
  return months;
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
  const months = monthsOf(scope.parts);
  const sums = new LineSums();
  const groupOf = (id: string, day: string) => directory.primaryGroupOn(id, day, by);
  const keys: string[] = [];
  for (const [month, segments] of months) {
    const ok = await addMonth(ctx, sums, { month, segments, groupOf, keys }, movedWithin(directory, segments, by));
    if (!ok) return null;
  }
  return sums.result();
}

interface Month {
  month: string;
  segments: readonly DayRange[];
  groupOf: (identity: string, day: string) => string;
  /** Identity keys by number, read once for every month. */
  keys: string[];
}

/** One month's cost into the lines: from the digests of its segments, else from the month's and, for movers, by day. */
async function addMonth(
  ctx: ToolContext,
  sums: LineSums,
  { month, segments, groupOf, keys }: Month,
  apart: (identity: string) => boolean,
): Promise<boolean> {
  const units = await costUnits(
    ctx,
    segments.map((days) => ({ days, bucket: 0 })),
    apart,
    keys,
  );
  if (units) {
    addUnits(sums, month, units, segments, groupOf);
    return true;
  }
  if (segments.length === 1) return false;
  // Only the month is stored, not its days: everyone else's month is summed, whoever moved in it is read by day.
  const days = { start: segments[0]!.start, end: segments.at(-1)!.end };
  const whole = await costUnits(ctx, [{ days, bucket: 0 }], () => false, keys);
  if (!whole) return false;
  const movers = [...whole.parts[0]!.ids.keys()].filter(apart);
  for (const id of movers) whole.parts[0]!.ids.delete(id);
  addUnits(sums, month, whole, [days], groupOf);
  for (const e of await moversByDay(ctx, days, movers))
    sums.addDecimals(month, groupOf(e.id, e.day), e.id, e.billed, e.credits);
  return true;
}

/** Each segment's sums in its identities' primary groups of its first day, no person's in its own line. */
function addUnits(
  sums: LineSums,
  month: string,
  units: SegmentUnits,
  segments: readonly DayRange[],
  groupOf: (identity: string, day: string) => string,
) {
  sums.scalesOf(month, units.scale, units.creditScale);
  for (const [i, part] of units.parts.entries()) {
    const day = formatDay(segments[i]!.start);
    for (const [id, v] of part.ids) sums.addUnits(month, groupOf(id, day), id, v.b, v.c);
    if (part.rest) sums.addUnits(month, NO_PERSON, null, part.rest.b, part.rest.c);
  }
}
