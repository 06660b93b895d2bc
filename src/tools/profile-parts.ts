import { rangeText } from '../upstream/dates.js';
import { z } from 'zod';
import { costAnalytics, type CostPoint } from '../upstream/endpoints/cost-analytics.js';
import type { EditorLanguage } from '../upstream/endpoints/daily-user-activity-by-editor-language.js';
import type { Answer } from '../upstream/client.js';
import type { DayRange } from '../upstream/dates.js';
import { identityKey, type IdentityRef } from '../upstream/merge.js';
import { compareDecimals } from '../upstream/numbers.js';
import { identityFilters } from './rows.js';
import { listAll } from './listing.js';
import { costByModel, costSum } from './overview-parts.js';
import type { ToolContext } from './types.js';

export const usesOut = z.object({
  date: z.string(),
  editors: z.record(z.string(), z.number().int()),
  languages: z.record(z.string(), z.number().int()),
});

/** One identity's cost per model and day over the period: one filtered request, a page or two. */
export function costOf(ctx: ToolContext, who: IdentityRef, period: DayRange) {
  return listAll(ctx, costAnalytics, {
    ...rangeText(period),
    group_by_keys: ['COST_ANALYTICS_GROUP_BY_RESOURCE'],
    granularity: 'COST_ANALYTICS_TIME_GRANULARITY_DAY',
    filters: identityFilters([who]),
  });
}

/** Cost and credits in all and by model, and the latest day with any cost: the person's latest active day. */
export function costProfile(cost: Answer<CostPoint[]>) {
  const used = (p: CostPoint) =>
    compareDecimals(p.cost_metrics.billed_amount_usd, '0') > 0 ||
    compareDecimals(p.cost_metrics.credits_consumed, '0') > 0;
  const days = cost.data.filter(used).map((p) => p.start_date);
  return {
    cost: { ...costSum(cost.data), by_model: costByModel(cost.data).filter((m) => m.billed_amount_usd !== '0') },
    latest: days.length ? days.reduce((a, b) => (a > b ? a : b)) : undefined,
  };
}

/** The editors and languages one identity used on a day, with its messages in each. */
export function usesOf(records: EditorLanguage['records'], who: IdentityRef, date: string): z.output<typeof usesOut> {
  const key = identityKey(who);
  const editors: Record<string, number> = {};
  const languages: Record<string, number> = {};
  for (const r of records) {
    if (identityKey(r) !== key) continue;
    editors[r.editor] = (editors[r.editor] ?? 0) + r.metrics.total_messages;
    languages[r.language] = (languages[r.language] ?? 0) + r.metrics.total_messages;
  }
  return { date, editors, languages };
}
