import { formatDay } from '../util/utc-date.js';
import { dauCount } from '../upstream/endpoints/dau-count.js';
import { listAll } from '../upstream/listing/list-all.js';
import { firstHeldDay, readSeries, type ReadContext } from './anomaly-data.js';
import { anomaliesLive } from './anomaly-live.js';
import { findAnomalies, type Anomaly } from './anomaly-find.js';
import { BASELINE_DAYS } from './anomaly-rules.js';

/**
 * The anomalies of a period, and which of its days could not be judged for want of stored baselines.
 * `storedOnly` (after a sync): none unless the store holds some day's baseline, and nothing asked live for them.
 * `deadline` (epoch ms): when the call's answer is due; past it the reads answer "not complete yet".
 */
export async function anomaliesOf(
  ctx: ReadContext,
  period: { start: number; end: number },
  storedOnly = false,
  deadline?: number,
) {
  const first = await firstHeldDay(ctx, period);
  if (storedOnly && (first === null || first > period.end)) return { anomalies: [] as Anomaly[], freshness: [] };
  const window = (start: number) => ({ start: start - BASELINE_DAYS, end: period.end });
  const syncDays = ctx.client.days().today - window(period.start).start + 1;
  const command = `run \`org-analytics-mcp sync --history-days ${syncDays}\``;
  if (first === null) return anomaliesLive(ctx, period, command, deadline);
  const leftOut =
    first > period.start ? { start_date: formatDay(period.start), end_date: formatDay(first - 1) } : undefined;
  const needs = leftOut
    ? `${leftOut.start_date}..${leftOut.end_date} left out: the history store lacks their ${BASELINE_DAYS}-day baselines; ${command}.`
    : undefined;
  if (first > period.end) {
    const counts = await listAll(ctx, dauCount, { days: period });
    return { anomalies: [] as Anomaly[], freshness: [counts.freshness], left_out: leftOut, needs };
  }
  const series = await readSeries(ctx, window(first), true, deadline);
  const anomalies = findAnomalies(series, { start: first, end: period.end });
  return { anomalies, freshness: series.freshness, left_out: leftOut, needs };
}
