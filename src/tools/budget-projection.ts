import { z } from 'zod';
import { ceilRatio, compareDecimals, scaleDecimal, subtractDecimals, sumDecimals } from '../upstream/numbers.js';
import { formatDay } from '../util/utc-date.js';

export const BUDGET_STATUSES = ['over', 'at_risk', 'ok', 'cleared', 'no_override'] as const;
export type BudgetStatus = (typeof BUDGET_STATUSES)[number];

/** The month so far: complete days (the 1st to yesterday) and today, the days it has, and today's day number. */
export interface MonthSoFar {
  completeDays: number;
  daysInMonth: number;
  today: number;
  /** Decimals the projection is rounded to: 0 for credits, 2 for USD. */
  places: number;
}

/** One identity's use this month: through yesterday, and today's part ("0" where the data stops at yesterday). */
export interface MonthUse {
  throughYesterday: string;
  today: string;
}

export const budgetRowOut = z.object({
  status: z.enum(BUDGET_STATUSES),
  limit: z.string().nullable().describe('"" cleared; null no override'),
  used: z.string().nullable(),
  percent_used: z.number().nullable(),
  projected: z.string().nullable().describe('end of month at the current daily rate'),
  limit_day: z.string().nullable().describe('when the limit is reached at that rate, this month'),
});
export type BudgetRow = z.output<typeof budgetRowOut>;

const times = (value: string, k: number) => scaleDecimal(value, BigInt(k), 1n);

/**
 * Projects the month at the average daily use of its complete days. Today counts at that rate, or at
 * what it has used already if that is more; the days after it at the rate. The 1st has no complete day,
 * so no rate and no projection.
 */
export function budgetRow(use: MonthUse | undefined, limit: string | null, m: MonthSoFar): BudgetRow {
  const ty = use?.throughYesterday ?? '0';
  const td = use?.today ?? '0';
  const used = sumDecimals([ty, td]);
  const cd = m.completeDays;
  const after = m.daysInMonth - cd - 1;
  // Everything below is multiplied by cd, so that the rate (ty / cd) stays exact.
  const todayAboveRate = cd > 0 && compareDecimals(times(td, cd), ty) > 0;
  const projected =
    cd === 0
      ? null
      : scaleDecimal(
          todayAboveRate ? sumDecimals([times(ty, cd + after), times(td, cd)]) : times(ty, cd + after + 1),
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
  if (cd > 0 && compareDecimals(ty, '0') > 0) {
    const todayEnd = todayAboveRate ? sumDecimals([times(ty, cd), times(td, cd)]) : times(ty, cd + 1);
    const shortfall = subtractDecimals(times(limit, cd), todayEnd);
    const k = compareDecimals(shortfall, '0') <= 0 ? 0 : Number(ceilRatio(shortfall, ty));
    if (k <= after) limitDay = formatDay(m.today + k);
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
  if (m.completeDays === 0) return 'No projection on the 1st: the month has no complete day yet.';
  return (
    `Projected at the average daily use of the month's ${m.completeDays} complete day${m.completeDays === 1 ? '' : 's'}: ` +
    `today at that rate (or what it has used, if more) and the ${m.daysInMonth - m.completeDays - 1} days after it.`
  );
}
