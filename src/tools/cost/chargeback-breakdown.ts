import type { GroupBy } from '../../directory/group-by.js';
import {
  breakdownKey,
  identityOfPoint,
  linesOf,
  type Breakdown,
  type ChargebackLine,
  type CostEntry,
} from '../../insights/chargeback-lines.js';
import { costAnalytics } from '../../upstream/endpoints/cost-analytics.js';
import { listAll } from '../../upstream/listing/list-all.js';
import { formatDay } from '../../util/utc-date.js';
import type { OrgScope } from '../shared/org-groups.js';
import type { ToolContext } from '../types.js';
import { breakdownKeys, movedWithin, moversByDay } from './chargeback-movers.js';
import { monthsOf } from './chargeback-stored.js';
import { costQuery } from './cost-query.js';

/**
 * Chargeback lines with a breakdown by model or product: each month's cost by person and model (or product) over
 * the whole month, as the history store keeps months, for everyone whose group is the same all month; whoever's
 * group changes within it is read by day (filtered to them). A year of cost by day and every key is never asked.
 */
export async function breakdownLines(
  ctx: ToolContext,
  scope: OrgScope,
  by: GroupBy,
  breakdown: Breakdown,
): Promise<ChargebackLine[]> {
  const directory = scope.view.directory;
  const query = costQuery({ granularity: 'total' }, breakdownKeys(breakdown));
  const entries: CostEntry[] = [];
  for (const segments of monthsOf(scope.parts).values()) {
    const days = { start: segments[0]!.start, end: segments.at(-1)!.end };
    const moved = movedWithin(directory, segments, by);
    const movers = new Set<string>();
    const first = formatDay(days.start);
    for (const p of (await listAll(ctx, costAnalytics, { days, ...query })).data) {
      const id = identityOfPoint(p);
      if (id !== null && moved(id)) {
        movers.add(id);
        continue;
      }
      const { billed_amount_usd: billed, credits_consumed: credits } = p.cost_metrics;
      entries.push({ id, day: first, billed, credits, key: breakdownKey(p, breakdown) });
    }
    entries.push(...(await moversByDay(ctx, days, [...movers], breakdown)));
  }
  return linesOf(entries, (id, day) => directory.primaryGroupOn(id, day, by), true);
}
