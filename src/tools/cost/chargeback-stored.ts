import type { DayRange } from '../../domain/dates.js';
import type { GroupBy } from '../../directory/group-by.js';
import { linesOf, type ChargebackLine, type CostEntry } from '../../insights/chargeback-lines.js';
import { costByIdentity } from '../../insights/digest-sums.js';
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
 * Chargeback lines without a breakdown from the store's digests: within a segment (one month, one directory),
 * each identity's summed cost goes to its primary group of the segment's first day, as each of its days' would.
 * Null when the store lacks a day of them (or the credits beside billed USD): the rows by day answer then.
 */
export async function storedLines(ctx: ToolContext, scope: OrgScope, by: GroupBy): Promise<ChargebackLine[] | null> {
  if (ctx.digests === NO_DIGESTS) return null;
  const entries: CostEntry[] = [];
  for (const segment of monthSegments(scope.parts)) {
    const sums = await costByIdentity(ctx, segment);
    if (!sums) return null;
    const day = formatDay(segment.start);
    for (const [id, s] of sums.ids) entries.push({ id, day, ...s });
    if (sums.rest) entries.push({ id: null, day, ...sums.rest });
  }
  const directory = scope.view.directory;
  return linesOf(entries, (id, day) => directory.primaryGroupOn(id, day, by));
}
