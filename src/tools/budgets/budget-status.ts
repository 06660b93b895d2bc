import { z } from 'zod';
import type { BillingPlan } from '../../contract/enums.js';
import { getUserBudgetOverrides, planOf } from '../../upstream/endpoints/get-user-budget-overrides.js';
import type { Freshness } from '../../domain/freshness.js';
import { identityKey, type IdentityRef } from '../../upstream/listing/merge.js';
import { formatDay } from '../../util/utc-date.js';
import { budgetRow, budgetRowOut, byRisk, projectionMethod } from './budget-projection.js';
import { monthOf, readMonthToDate } from './month-to-date.js';
import { identityFilters, identityOf, identityOut } from '../shared/rows.js';
import type { ToolContext } from '../types.js';

export const budgetUserRowOut = z.object({ ...identityOut, ...budgetRowOut.shape });

/** What this month's use covers: from the 1st through a day, whether today's partial use is in, in words. */
export const monthToDateOut = z.object({
  start: z.string(),
  through: z.string(),
  includes_today: z.boolean(),
  covers: z.string(),
});

/**
 * Every override (or the named identities') with this month's use against its limit, riskiest first.
 * Named identities without an override are kept, as `no_override`; unknown ones are the upstream's 400.
 */
export async function budgetStatuses(ctx: ToolContext, asked: IdentityRef[] = []) {
  const named = asked.length ? identityFilters(asked) : undefined;
  const { value, freshness } = await ctx.client.call(getUserBudgetOverrides, named ?? {}, ctx.signal);
  // Named identities without overrides say nothing of the plan: every override does, as a last resort.
  const plan: BillingPlan | null =
    ctx.config.billingPlan ??
    planOf(value) ??
    (named ? planOf((await ctx.client.call(getUserBudgetOverrides, {}, ctx.signal)).value) : undefined) ??
    null;
  const who = new Map<string, { id: IdentityRef; limit: string | null }>();
  for (const o of value.overrides) who.set(identityKey(o), { id: o, limit: o.config.limit });
  for (const id of asked) if (!who.has(identityKey(id))) who.set(identityKey(id), { id, limit: null });
  const ids = [...who.values()].map((w) => w.id);
  const mtd = plan && ids.length ? await readMonthToDate(ctx, plan, ids) : undefined;
  const month = mtd ?? { ...monthOf(ctx.client.today()), partial: false, places: 0 };
  const rows = [...who.entries()]
    .map(([key, w]) => {
      const row = budgetRow(mtd?.use.get(key), w.limit, month);
      // Without the billing plan nothing says which use counts: no numbers rather than wrong ones.
      return { ...identityOf(w.id), ...(mtd ? row : { ...row, used: null, projected: null, limit_day: null }) };
    })
    .sort(byRisk);
  return {
    plan,
    rows,
    month_to_date: {
      start: month.start,
      through: mtd?.through ?? formatDay(ctx.client.today()),
      includes_today: mtd?.includesToday ?? false,
      covers:
        mtd?.covers ??
        (plan
          ? 'Nothing to read: no overrides.'
          : 'Billing plan unknown: set ANALYTICS_BILLING_PLAN to credits or usd.'),
    },
    projection: projectionMethod(month),
    freshness: [freshness, ...(mtd?.freshness ?? [])] as Freshness[],
  };
}
