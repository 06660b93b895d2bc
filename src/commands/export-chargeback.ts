import type { GroupBy } from '../directory/group-by.js';
import type { OrgView } from '../directory/org-view.js';
import { CHARGEBACK_COLUMNS, type DerivedShape } from '../export/columns.js';
import { chargebackLines } from '../insights/chargeback-lines.js';
import { foldChargeback, inOrder } from '../tools/cost/chargeback-fold.js';
import type { CostPoint } from '../upstream/endpoints/cost-analytics.js';

/**
 * `export --what chargeback`: get_chargeback's lines from the stored cost by day, each person's cost in their
 * primary group of that day; with `fold`, groups under the minimum size folded as in pseudonymous answers.
 */
export function chargebackExport(view: OrgView, grouping: GroupBy, fold: number | undefined): DerivedShape {
  return {
    dataset: 'cost-by-day',
    columns: CHARGEBACK_COLUMNS,
    async derive(days) {
      const points: CostPoint[] = [];
      for await (const day of days)
        for (const r of day.rows) points.push({ ...(r as unknown as CostPoint), start_date: day.date });
      const all = chargebackLines(points, (id, day) => view.directory.primaryGroupOn(id, day, grouping));
      const { lines } =
        fold === undefined
          ? { lines: inOrder(all) }
          : foldChargeback(all, fold, (g) => grouping.kind === 'team' && !g.startsWith('('));
      return lines.map((l) => [l.month, l.group, l.billed_amount_usd, l.credits, l.members]);
    },
  };
}
