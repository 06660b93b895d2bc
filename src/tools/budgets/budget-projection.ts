import { z } from 'zod';
import { ceilRatio, compareDecimals, scaleDecimal, subtractDecimals, sumDecimals } from '../../domain/numbers.js';
import { formatDay } from '../../util/utc-date.js';

export const BUDGET_STATUSES = ['over', 'at_risk', 'ok', 'cleared', 'no_override'] as const;

/**
 * The month so far: its complete days (the 1st to the latest complete day), the days it has, and the
 * first day after the complete ones, which is projected: today for credits (with what it has used so
 * far), the day after the latest complete day for cost (yesterday, until the refresh hour).
 */
export interface MonthSoFar {
  completeDays: number;
  daysInMonth: number;
  next: number;
  /** Whether `next` has use already: credit usage's partial today. */
  partial: boolean;
  /** Decimals the projection is rounded to: 0 for credits, 2 for USD. */
  places: number;
}

/** One identity's use this month: over the complete days, and on the partial day ("0" where there is none). */
export interface MonthUse {
  complete: string;
  partial: string;
}

export const budgetRowOut = z.object({
  status: z.enum(BUDGET_STATUSES),
  limit: z.string().nullable().describe('"" cleared; null no override'),
  used: z.string().nullable(),
  percent_used: z.number().nullable(),
  projected: z.string().nullable().describe('month end at the daily rate'),
  limit_day: z.string().nullable().describe('day the limit falls at that rate'),
});
export type BudgetRow = z.output<typeof budgetRowOut>;

const times = (value: string, k: number) => scaleDecimal(value, BigInt(k), 1n);

/**
 * Projects the month at the average daily use of its complete days. The next day counts at that rate,
 * or at what it has used already if that is more; the days after it at the rate. Without a complete day
 * (the 1st) there is no rate and no projection.
 */
export function budgetRow(use: MonthUse | undefined, limit: string | null, m: MonthSoFar): BudgetRow {
  const done = use?.complete ?? '0';
  const part = use?.partial ?? '0';
  const used = sumDecimals([done, part]);
  const cd = m.completeDays;
  const after = m.daysInMonth - cd - 1;
  // Everything below is multiplied by cd, so that the rate (done / cd) stays exact.
  const nextAboveRate = cd > 0 && compareDecimals(times(part, cd), done) > 0;
  const projected =
    cd === 0
      ? null
      : scaleDecimal(
          nextAboveRate ? sumDecimals([times(done, cd + after), times(part, cd)]) : times(done, cd + after + 1),
          1n,
          BigInt(cd),
          m.places,
        );
  const base = { used, projected };
  if (limit === null) return { status: 'no_override', limit, percent_used: null, limit_day: null, ...base };
  if (limit === '') return { status: 'cleared', limit, percent_used: null, limit_day: null, ...base };
  const percent = Number(scaleDecimal(used, 1000n, BigInt(limit), 0)) / 10;
  if (compareDecimals(used, limit) >= 0)
    return { status: 'over', limit, percent_used: percent, limit_day: null, ...base };
  let limitDay: string | null = null;
  if (cd > 0 && compareDecimals(done, '0') > 0) {
    const nextEnd = nextAboveRate ? sumDecimals([times(done, cd), times(part, cd)]) : times(done, cd + 1);
    const shortfall = subtractDecimals(times(limit, cd), nextEnd);
    const k = compareDecimals(shortfall, '0') <= 0 ? 0 : Number(ceilRatio(shortfall, done));
    if (k <= after) limitDay = formatDay(m.next + k);
  }
  const atRisk = projected !== null && compareDecimals(projected, limit) >= 0;
  return { status: atRisk ? 'at_risk' : 'ok', limit, percent_used: percent, limit_day: limitDay, ...base };
}

/** Riskiest first: over, then at risk by the day the limit falls, then ok by share used; cleared and no override last. */
export function byRisk(a: BudgetRow & { user: string }, b: BudgetRow & { user: string }): number {
  const rank = BUDGET_STATUSES.indexOf(a.status) - BUDGET_STATUSES.indexOf(b.status);
  if (rank !== 0) return rank;
  if (a.status === 'at_risk' && a.limit_day !== b.limit_day)
    return a.limit_day === null ? 1 : b.limit_day === null ? -1 : a.limit_day < b.limit_day ? -1 : 1;
  const share = (b.percent_used ?? -1) - (a.percent_used ?? -1);
  return share !== 0 ? share : a.user < b.user ? -1 : a.user > b.user ? 1 : 0;
}

/** How the projection was made, in words, for the answer. */
export function projectionMethod(m: MonthSoFar): string {
  if (m.completeDays === 0) return 'No projection: the month has no complete day yet.';
  const rate = `Projected at the average daily use of the month's ${m.completeDays} complete day${m.completeDays === 1 ? '' : 's'}`;
  const rest = m.daysInMonth - m.completeDays;
  return m.partial
    ? `${rate}: today at that rate (or what it has used, if more)${rest === 1 ? '' : ` and the ${rest === 2 ? 'day' : `${rest - 1} days`} after it`}.`
    : `${rate}, for the ${rest} day${rest === 1 ? '' : 's'} after them.`;
}
