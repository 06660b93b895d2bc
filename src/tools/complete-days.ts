import type { DayRange, NamedRange } from '../upstream/dates.js';
import type { RangeArg } from '../upstream/endpoint.js';
import { InvalidArgumentError } from '../upstream/errors.js';
import { REFRESH_HOUR_UTC } from '../upstream/freshness.js';
import { formatDay } from '../util/utc-date.js';
import { resolvePeriod } from './periods.js';
import type { ToolContext } from './types.js';

/**
 * The latest complete day of the daily data (metrics and cost): yesterday once its data has arrived at
 * ~02:00 UTC, the day before until then. Range checks allow yesterday at any hour (the upstream does),
 * but before 02:00 it reads as empty, so the composite answers stop a day earlier.
 */
export function latestCompleteDay(ctx: ToolContext): number {
  const today = ctx.client.today();
  const hour = new Date(ctx.client.now()).getUTCHours();
  return hour < REFRESH_HOUR_UTC ? today - 2 : today - 1;
}

/** "2026-11-16 arrives at ~02:00 UTC": the day after the latest complete one, when that is yesterday. */
export function arrives(latest: number): string {
  return `${formatDay(latest + 1)} arrives at ~0${REFRESH_HOUR_UTC}:00 UTC`;
}

/** Whether the latest complete day is the day before yesterday: yesterday is not in yet. */
export function beforeRefresh(latest: number, today: number): boolean {
  return latest < today - 1;
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
  const today = ctx.client.today();
  const latest = latestCompleteDay(ctx);
  const named = args.start_date === undefined && args.end_date === undefined;
  // Named ranges resolve as on the day after the latest complete one, so that they end on it.
  const asked = resolvePeriod(args, named ? latest + 1 : today, fallback);
  if (asked.start > latest)
    throw new InvalidArgumentError(
      `${formatDay(asked.start)} is not complete yet: ${arrives(latest)}; the latest complete day is ${formatDay(latest)} (UTC).`,
    );
  const period = { start: asked.start, end: Math.min(asked.end, latest) };
  const cut = beforeRefresh(latest, today) && period.end === latest;
  return cut ? { period, covers: `Complete days through ${formatDay(latest)}: ${arrives(latest)}.` } : { period };
}
