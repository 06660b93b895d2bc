import { LOOKBACK_YEARS, MAX_RANGE_DAYS } from '../contract/limits.js';
import { earliestDay, type DayRange } from '../domain/dates.js';
import { UserInputError } from '../errors.js';
import { formatDay } from '../util/utc-date.js';
import { dauCount } from '../upstream/endpoints/dau-count.js';
import { listAll } from '../upstream/listing/list-all.js';
import { readSeries, type ReadContext } from './anomaly-data.js';
import { judge, type Found } from './anomaly-judge.js';
import type { GroupLens } from './anomaly-groups.js';
import { BASELINE_DAYS } from './anomaly-rules.js';

/** Days of a period judged live at most, without the store: each reads every identity's credits by day. */
const LIVE_DAYS = MAX_RANGE_DAYS;

/**
 * No store: what one can judge live, daily credits and active users, over days whose baselines lie within
 * the API's lookback. A longer period than LIVE_DAYS is refused before anything is sent: at the credit-usage
 * rate limit its reads take many minutes (hours at 10,000 people), and the sync answers it with cost too.
 */
export async function anomaliesLive(
  ctx: ReadContext,
  period: DayRange,
  command: string,
  deadline?: number,
  groups?: GroupLens,
): Promise<Found> {
  const days = period.end - period.start + 1;
  if (days > LIVE_DAYS)
    throw new UserInputError(
      `Without the history store at most ${LIVE_DAYS} days are judged live (each reads every identity's credits by day, with ${BASELINE_DAYS} days of baselines before), and this range has ${days}: ${command} first (cost, model and resource anomalies are then judged too), or ask a shorter range such as last_30_days.`,
    );
  const needs = `Cost, model and resource anomalies need the history store: ${command}.`;
  // The upstream refuses days beyond its lookback: days whose baselines reach there are left out.
  const judged = Math.max(period.start, earliestDay(ctx.client.days().today) + BASELINE_DAYS);
  const leftOut =
    judged > period.start
      ? { start_date: formatDay(period.start), end_date: formatDay(Math.min(judged, period.end + 1) - 1) }
      : undefined;
  const lookback = leftOut
    ? `${leftOut.start_date}..${leftOut.end_date} left out: their ${BASELINE_DAYS}-day baselines lie beyond the API's ${LOOKBACK_YEARS}-year lookback. `
    : '';
  if (judged > period.end) {
    const counts = await listAll(ctx, dauCount, { days: period });
    return { anomalies: [], freshness: [counts.freshness], left_out: leftOut, needs: lookback + needs };
  }
  const window = { start: judged - BASELINE_DAYS, end: period.end };
  const series = await readSeries(ctx, window, false, deadline);
  const found = await judge(ctx, series, window, { start: judged, end: period.end }, groups);
  return { ...found, left_out: leftOut, needs: lookback + needs };
}
