import { z } from 'zod';
import { costAnalytics, type CostPoint } from '../../upstream/endpoints/cost-analytics.js';
import type { CreditUsage } from '../../upstream/endpoints/credit-usage-by-user.js';
import { dau } from '../../upstream/endpoints/dau.js';
import type { EditorLanguage } from '../../upstream/endpoints/daily-user-activity-by-editor-language.js';
import type { DayRange } from '../../domain/dates.js';
import type { Freshness } from '../../domain/freshness.js';
import { identityKey, type IdentityRef } from '../../upstream/listing/merge.js';
import { sumDecimals } from '../../domain/numbers.js';
import { formatDay } from '../../util/utc-date.js';
import { identityFilters, sortRows } from '../shared/rows.js';
import { listAll } from '../../upstream/listing/list-all.js';
import { costByModel, costSum } from './overview-parts.js';
import type { ToolContext } from '../types.js';

export const usesOut = z.object({
  date: z.string(),
  editors: z.record(z.string(), z.number().int()),
  languages: z.record(z.string(), z.number().int()),
});

export const profileCreditsOut = z.object({
  credits_consumed: z.string(),
  by_model: z.array(z.object({ model: z.string(), credits_consumed: z.string() })),
});
export const profileCostOut = z.object({
  billed_amount_usd: z.string(),
  by_model: z.array(z.object({ model: z.string(), billed_amount_usd: z.string() })),
});

/** One identity's cost per model and day over the period: one filtered request, a page or two. */
export function costOf(ctx: ToolContext, who: IdentityRef, period: DayRange) {
  return listAll(ctx, costAnalytics, {
    days: period,
    group_by_keys: ['COST_ANALYTICS_GROUP_BY_RESOURCE'],
    granularity: 'COST_ANALYTICS_TIME_GRANULARITY_DAY',
    filters: identityFilters([who]),
  });
}

/** Billed USD in all and by model (credits are credit usage's, not cost's: see `creditsOf`). */
export function costProfile(points: readonly CostPoint[]): z.output<typeof profileCostOut> {
  return {
    billed_amount_usd: costSum(points).billed_amount_usd,
    by_model: costByModel(points)
      .filter((m) => m.billed_amount_usd !== '0')
      .map(({ model, billed_amount_usd }) => ({ model, billed_amount_usd })),
  };
}

/** One identity's credits in all and by model, from credit usage by model: the source its budget counts. */
export function creditsOf(records: CreditUsage['records'], who: IdentityRef): z.output<typeof profileCreditsOut> {
  const key = identityKey(who);
  const byModel = new Map<string, string[]>();
  for (const r of records)
    if (identityKey(r) === key && r.credits_consumed > 0)
      byModel.set(r.model_name ?? '(none)', [
        ...(byModel.get(r.model_name ?? '(none)') ?? []),
        String(r.credits_consumed),
      ]);
  const total = sumDecimals([...byModel.values()].flat());
  const rows = [...byModel].map(([model, cs]) => {
    return { model, credits_consumed: sumDecimals(cs) };
  });
  return {
    credits_consumed: total,
    by_model: sortRows(
      rows,
      (r) => r.credits_consumed,
      'desc',
      (r) => r.model,
    ),
  };
}

/**
 * Days of the daily active lists read at once, walking back from the period's end: one day first (most people
 * asked about were active lately), then more at a time, up to a week, so that a long search takes fewer rounds.
 */
const STEPS = [1, 2, 4, 7];

/**
 * The identity's latest active day in the period, from the daily active lists (every page of each day),
 * newest first; no date when no list names it. `deadline`: when the call's answer budget ends.
 */
export async function latestActiveDay(
  ctx: ToolContext,
  who: IdentityRef,
  period: DayRange,
  deadline: number,
): Promise<{ date?: string; freshness: Freshness[] }> {
  const key = identityKey(who);
  const freshness: Freshness[] = [];
  let round = 0;
  for (let end = period.end; end >= period.start; end -= STEPS[round]!, round = Math.min(round + 1, STEPS.length - 1)) {
    const days: number[] = [];
    for (let d = end; d >= Math.max(period.start, end - STEPS[round]! + 1); d--) days.push(d);
    const lists = await Promise.all(
      days.map((d) => listAll(ctx, dau, { days: { start: d, end: d } }, deadline - Date.now())),
    );
    freshness.push(...lists.map((l) => l.freshness));
    const found = lists.findIndex((l) => l.data.some((u) => identityKey(u) === key));
    if (found >= 0) return { date: formatDay(days[found]!), freshness };
  }
  return { freshness };
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
