import { freshnessOut, type FreshnessOut } from '../../format/freshness.js';
import { namedPeriodEnd, type DateRules, type DayRange, type NamedRange } from '../../domain/dates.js';
import type { RangeArg } from '../../upstream/endpoint.js';
import { UserInputError } from '../../errors.js';
import type { Freshness } from '../../domain/freshness.js';
import { hourText } from '../../domain/published-days.js';
import { formatDay, parseIsoDay } from '../../util/utc-date.js';
import { resolvePeriod } from './periods.js';
import type { ToolContext } from '../types.js';

/**
 * The latest complete day of the daily data (metrics and cost): the latest day whose figures are
 * published, yesterday from the refresh hour (--refresh-hour), the day before until then.
 */
export function latestCompleteDay(ctx: ToolContext): number {
  return ctx.client.days().published;
}

/** "2026-11-16 arrives at ~03:00 UTC": the day after the latest complete one, when that is yesterday. */
export function arrives(ctx: ToolContext, latest: number): string {
  return `${formatDay(latest + 1)} arrives at ${hourText(ctx.client.refreshHour)}`;
}

/** Whether the latest complete day is the day before yesterday: yesterday is not in yet. */
export function beforeRefresh(latest: number, today: number): boolean {
  return latest < today - 1;
}

/**
 * The days of the period asked for that are not published yet: after the latest complete day, through
 * the end asked for (previous_month: its last day, also while the answer stops before it). Credit usage,
 * which has today, has none.
 */
export function unpublishedDays(ctx: ToolContext, args: RangeArg, end: string, rules: DateRules = 'metrics') {
  if (rules === 'credit') return [];
  const days = ctx.client.days();
  const last = args.range ? namedPeriodEnd(args.range, rules, days) : parseIsoDay(end)!;
  const out: string[] = [];
  for (let day = days.published + 1; day <= last; day++) out.push(formatDay(day));
  return out;
}

/**
 * The days a composite answer covers: a named range (or `fallback`) resolved against the latest
 * complete day, explicit dates as given but ending there at the latest. `covers` says so when yesterday
 * was left out because it has not arrived yet.
 */
export function completePeriod(
  ctx: ToolContext,
  args: RangeArg,
  fallback: NamedRange,
): { period: DayRange; covers?: string } {
  const days = ctx.client.days();
  const latest = days.published;
  const asked = resolvePeriod(args, days, fallback);
  if (asked.start > latest)
    throw new UserInputError(
      `${formatDay(asked.start)} is not complete yet: ${arrives(ctx, latest)}; the latest complete day is ${formatDay(latest)} (UTC).`,
    );
  const period = { start: asked.start, end: Math.min(asked.end, latest) };
  const cut = beforeRefresh(latest, days.today) && period.end === latest;
  return cut ? { period, covers: `Complete days through ${formatDay(latest)}: ${arrives(ctx, latest)}.` } : { period };
}

/**
 * The freshness of an answer to `args` that ends on `end`: data through the latest complete day at most
 * (credit usage: its end), and the days asked for that are not published yet.
 */
export function answerFreshness(
  ctx: ToolContext,
  f: Freshness,
  args: RangeArg,
  end: string,
  rules: DateRules = 'metrics',
): FreshnessOut {
  const through = rules === 'credit' ? end : formatDay(Math.min(parseIsoDay(end)!, latestCompleteDay(ctx)));
  return freshnessOut(f, through, unpublishedDays(ctx, args, end, rules));
}
