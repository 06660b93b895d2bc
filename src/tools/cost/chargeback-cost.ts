import { GROUP_BY_KEYS } from '../../contract/enums.js';
import type { GroupBy } from '../../directory/group-by.js';
import type { FreshnessOut } from '../../format/freshness.js';
import { chargebackLines, type Breakdown, type ChargebackLine } from '../../insights/chargeback-lines.js';
import { costAnalytics, type CostPoint } from '../../upstream/endpoints/cost-analytics.js';
import { listAll } from '../../upstream/listing/list-all.js';
import { listRows } from '../shared/listing.js';
import type { OrgScope } from '../shared/org-groups.js';
import type { ToolContext } from '../types.js';
import { storedLines } from './chargeback-stored.js';
import { breakdownLines } from './chargeback-breakdown.js';
import { costQuery } from './cost-query.js';

/**
 * A chargeback's lines, its cost in all over the months, and the freshness of what answered: without a breakdown
 * from the store's digests where it holds every month, else from cost by day and every key, asked exactly as the
 * history store keeps it; with one, from each month's cost by person and model or product (breakdownLines).
 */
export async function chargebackCost(
  ctx: ToolContext,
  scope: OrgScope,
  by: GroupBy,
  args: { breakdown?: Breakdown | undefined },
): Promise<{ all: ChargebackLine[]; listed: { published: FreshnessOut }; whole: CostPoint[] }> {
  const days = { start: scope.parts[0]!.start, end: scope.parts.at(-1)!.end };
  const totalQuery = { days, ...costQuery({ granularity: 'total' }, []) };
  const stored = args.breakdown
    ? await breakdownLines(ctx, scope, by, args.breakdown)
    : await storedLines(ctx, scope, by);
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
