import { formatDay } from '../util/utc-date.js';
import { dauCount } from '../upstream/endpoints/dau-count.js';
import { listAll } from '../upstream/listing/list-all.js';
import type { DayRange } from '../domain/dates.js';
import { firstHeldDay, readSeries, type ReadContext } from './anomaly-data.js';
import { anomaliesLive } from './anomaly-live.js';
import type { Anomaly } from './anomaly-find.js';
import type { GroupLens } from './anomaly-groups.js';
import { judge, type Found } from './anomaly-judge.js';
import { BASELINE_DAYS } from './anomaly-rules.js';

/**
 * The anomalies of a period, and which of its days could not be judged for want of stored baselines.
 * `storedOnly` (after a sync): none unless the store holds some day's baseline, and nothing asked live for them.
 * `deadline` (epoch ms): when the call's answer is due; past it the reads answer "not complete yet".
 * `groups` (issue 34): each group's days judged too, the identities kept to the teams asked for, and the
 * period's rows per identity for the groups block.
 */
export async function anomaliesOf(
  ctx: ReadContext,
  period: DayRange,
  storedOnly?: boolean,
  deadline?: number,
): Promise<Found<Anomaly>>;
export async function anomaliesOf(
  ctx: ReadContext,
  period: DayRange,
  storedOnly: boolean,
  deadline: number | undefined,
  groups: GroupLens | undefined,
): Promise<Found>;
export async function anomaliesOf(
  ctx: ReadContext,
  period: DayRange,
  storedOnly = false,
  deadline?: number,
  groups?: GroupLens,
): Promise<Found> {
  const first = await firstHeldDay(ctx, period);
  if (storedOnly && (first === null || first > period.end)) return { anomalies: [], freshness: [] };
  const window = (start: number) => ({ start: start - BASELINE_DAYS, end: period.end });
  const syncDays = ctx.client.days().today - window(period.start).start + 1;
  const command = `run \`org-analytics-mcp sync --history-days ${syncDays}\``;
  if (first === null) return anomaliesLive(ctx, period, command, deadline, groups);
  const leftOut =
    first > period.start ? { start_date: formatDay(period.start), end_date: formatDay(first - 1) } : undefined;
  const needs = leftOut
    ? `${leftOut.start_date}..${leftOut.end_date} left out: the history store lacks their ${BASELINE_DAYS}-day baselines; ${command}.`
    : undefined;
  if (first > period.end) {
    const counts = await listAll(ctx, dauCount, { days: period });
    return { anomalies: [], freshness: [counts.freshness], left_out: leftOut, needs };
  }
  const series = await readSeries(ctx, window(first), true, deadline);
  return {
    ...(await judge(ctx, series, window(first), { start: first, end: period.end }, groups)),
    left_out: leftOut,
    needs,
  };
}
