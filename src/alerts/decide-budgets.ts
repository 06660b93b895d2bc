import type { AlertCandidate } from '../domain/alerts.js';
import { compareDecimals, scaleDecimal, subtractDecimals } from '../domain/numbers.js';
import { budgetStatuses } from '../tools/budgets/budget-status.js';
import type { ToolContext } from '../tools/types.js';

export type BudgetThreshold = '80' | '100' | 'projected_100';

const atLeast = (a: string, b: string) => compareDecimals(a, b) >= 0;

/**
 * The thresholds a month's use has crossed: 100 alone once the limit is reached (the lower ones say less), else
 * 80 (four fifths used) and projected_100 (the month's end at the daily rate reaches the limit), each on its own.
 */
export function crossed(used: string, limit: string, projected: string | null): BudgetThreshold[] {
  if (atLeast(used, limit)) return ['100'];
  const out: BudgetThreshold[] = [];
  if (atLeast(scaleDecimal(used, 5n, 1n), scaleDecimal(limit, 4n, 1n))) out.push('80');
  if (projected !== null && atLeast(projected, limit)) out.push('projected_100');
  return out;
}

/**
 * `budget.threshold`: every override whose use this month crossed a threshold, as get_budget_status reads and
 * projects it, keyed once per identity, threshold and month. Without the billing plan nothing says which use
 * counts, so nothing is decided. Its excess is what is over the limit (used, or projected); none at 80 %.
 */
export async function budgetCandidates(ctx: ToolContext): Promise<AlertCandidate[]> {
  const status = await budgetStatuses(ctx);
  if (!status.plan) return [];
  const month = status.month_to_date.start.slice(0, 7);
  const excessField = status.plan === 'usd' ? 'excessUsd' : 'excessCredits';
  const out: AlertCandidate[] = [];
  for (const row of status.rows) {
    if ((row.status !== 'over' && row.status !== 'at_risk' && row.status !== 'ok') || !row.limit || !row.used) continue;
    const identity = row.kind === 'user' ? `u:${row.user.toLowerCase()}` : `s:${row.user}`;
    const who = row.kind === 'user' ? { user_email: row.user } : { service_account_name: row.user };
    for (const threshold of crossed(row.used, row.limit, row.projected)) {
      const reached = threshold === 'projected_100' ? row.projected! : row.used;
      const excess = subtractDecimals(reached, row.limit);
      out.push({
        type: 'budget.threshold',
        dedupKey: `budget.threshold:${identity}:${threshold}:${month}`,
        data: {
          ...who,
          resource: status.plan,
          limit: row.limit,
          used: row.used,
          projected: row.projected,
          threshold,
          month,
        },
        scope: { identities: [identity], ...(threshold === '80' ? {} : { [excessField]: excess }) },
      });
    }
  }
  return out;
}
