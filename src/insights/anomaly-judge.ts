import type { DayRange } from '../domain/dates.js';
import type { Freshness } from '../domain/freshness.js';
import { identityKey, type IdentityRef } from '../upstream/listing/merge.js';
import { parseIsoDay } from '../util/utc-date.js';
import type { ReadContext, Series } from './anomaly-data.js';
import { findAnomalies, findWithGroups, type Anomaly, type GroupAnomaly } from './anomaly-find.js';
import type { GroupLens, GroupRow } from './anomaly-groups.js';
import { groupDaysOf } from './anomaly-group-sources.js';

export interface Found<A = Anomaly | GroupAnomaly> {
  anomalies: A[];
  freshness: Freshness[];
  left_out?: { start_date: string; end_date: string } | undefined;
  needs?: string | undefined;
  /** The judged days' figures per identity, by part of the period (with `groups`). */
  rows?: Array<{ part: DayRange; rows: GroupRow[] }>;
}

/** The anomalies of the judged days, the groups' among them when asked for. */
export async function judge(ctx: ReadContext, series: Series, window: DayRange, judged: DayRange, groups?: GroupLens) {
  if (!groups) return { anomalies: findAnomalies(series, judged), freshness: series.freshness };
  const days = await groupDaysOf(ctx, series, window, judged, groups);
  const found = days ? findWithGroups(series, judged, days.series) : findAnomalies(series, judged);
  return { anomalies: found.filter(keptFor(groups)), freshness: series.freshness, rows: days?.rows ?? [] };
}

/** With `teams`, only the identities in them on the day: the organization's and resources' anomalies are not theirs. */
export const keptFor = (lens: GroupLens) => (a: Anomaly | GroupAnomaly) => {
  if ('group' in a) return true;
  if (a.user_email === undefined && a.service_account_name === undefined) return !lens.filtered;
  return lens.groupsOn(identityKey(a as IdentityRef), parseIsoDay(a.date)!).length > 0;
};
