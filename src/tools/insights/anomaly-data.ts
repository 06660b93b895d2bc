import type { DayRange } from '../../domain/dates.js';
import type { Freshness } from '../../domain/freshness.js';
import { parseIsoDay } from '../../util/utc-date.js';
import { costAnalytics, type CostPoint } from '../../upstream/endpoints/cost-analytics.js';
import { creditUsageByUser } from '../../upstream/endpoints/credit-usage-by-user.js';
import { dauCount } from '../../upstream/endpoints/dau-count.js';
import { identityKey, type IdentityRef } from '../../upstream/listing/merge.js';
import { listAll } from '../shared/listing.js';
import type { ToolContext } from '../types.js';
import { BASELINE_DAYS, scaleOf, unitsAt, type Daily } from './anomaly-rules.js';

/** What reading the series takes: a tool's context, or the sync's. */
export type ReadContext = Pick<ToolContext, 'client' | 'config' | 'signal' | 'progress'>;

/** The daily series find_anomalies reads, keyed by identity, resource or nothing (the organization). */
export interface Series {
  identities: Map<string, IdentityRef>;
  credits: Map<string, Daily>;
  orgCredits: Daily;
  activeUsers: Daily;
  /** Billed USD, at `scale` decimals; absent on the live path. */
  cost?: { scale: number; byIdentity: Map<string, Daily>; org: Daily; byResource: Map<string, Daily> };
  freshness: Freshness[];
}

const add = (m: Map<string, Daily>, key: string, day: number, v: bigint) => {
  let daily = m.get(key);
  if (!daily) m.set(key, (daily = new Map()));
  daily.set(day, (daily.get(day) ?? 0n) + v);
};

/**
 * The first day of `period` whose 28 days before are all in the history store; null without a store.
 * Probed on the daily active counts (one row a day, synced with the rest): the days held end at the latest.
 */
export async function firstHeldDay(ctx: ReadContext, period: DayRange): Promise<number | null> {
  if (ctx.client.days().storedFrom === undefined) return null;
  const held = (d: number) => ctx.client.stored(dauCount, { days: { start: d - BASELINE_DAYS, end: period.end } });
  let [lo, hi] = [period.start, period.end + 1];
  if (await held(lo)) return lo;
  while (lo + 1 < hi) {
    const mid = Math.floor((lo + hi) / 2);
    if (await held(mid)) hi = mid;
    else lo = mid;
  }
  return hi;
}

/** The series of `days` (baselines included): credits and active users always, billed cost with `cost`. */
export async function readSeries(ctx: ReadContext, days: DayRange, cost: boolean): Promise<Series> {
  // A few dozen dates among hundreds of thousands of rows: each parsed once.
  const dayNumbers = new Map<string, number>();
  const dayOf = (date: string) => {
    let d = dayNumbers.get(date);
    if (d === undefined) dayNumbers.set(date, (d = parseIsoDay(date)!));
    return d;
  };
  const day = 'COST_ANALYTICS_TIME_GRANULARITY_DAY' as const;
  const [credits, active, byUser, total, byResource] = await Promise.all([
    listAll(ctx, creditUsageByUser, { days, by_date: true }),
    listAll(ctx, dauCount, { days }),
    cost
      ? listAll(ctx, costAnalytics, { days, group_by_keys: ['COST_ANALYTICS_GROUP_BY_USER'], granularity: day })
      : null,
    cost ? listAll(ctx, costAnalytics, { days, granularity: day }) : null,
    cost
      ? listAll(ctx, costAnalytics, { days, group_by_keys: ['COST_ANALYTICS_GROUP_BY_RESOURCE'], granularity: day })
      : null,
  ]);
  const out: Series = {
    identities: new Map(),
    credits: new Map(),
    orgCredits: new Map(),
    activeUsers: new Map(),
    freshness: [credits.freshness, active.freshness],
  };
  for (const r of credits.data) {
    const key = identityKey(r);
    const d = dayOf(r.date!);
    out.identities.set(
      key,
      r.user_email !== undefined ? { user_email: r.user_email } : { service_account_name: r.service_account_name! },
    );
    add(out.credits, key, d, BigInt(r.credits_consumed));
    out.orgCredits.set(d, (out.orgCredits.get(d) ?? 0n) + BigInt(r.credits_consumed));
  }
  for (const r of active.data) out.activeUsers.set(dayOf(r.date), BigInt(r.user_count));
  if (byUser && total && byResource) {
    out.freshness.push(byUser.freshness, total.freshness, byResource.freshness);
    const points = [...byUser.data, ...total.data, ...byResource.data];
    const scale = points.reduce((s, p) => Math.max(s, scaleOf(p.cost_metrics.billed_amount_usd)), 0);
    const billed = (p: CostPoint) => unitsAt(p.cost_metrics.billed_amount_usd, scale);
    const series = { scale, byIdentity: new Map<string, Daily>(), org: new Map() as Daily, byResource: new Map() };
    for (const p of byUser.data) {
      const u = p.group_by_values.user_info;
      // Bots and deleted accounts have no identity to name: they count in the organization's cost only.
      const who = u?.user_email !== undefined ? { user_email: u.user_email } : u?.service_account_name;
      if (who === undefined) continue;
      const ref = typeof who === 'string' ? { service_account_name: who } : who;
      const key = identityKey(ref);
      out.identities.set(key, ref);
      add(series.byIdentity, key, dayOf(p.start_date), billed(p));
    }
    for (const p of total.data) series.org.set(dayOf(p.start_date), billed(p));
    for (const p of byResource.data)
      add(series.byResource, p.group_by_values.resource_display_name ?? '?', dayOf(p.start_date), billed(p));
    out.cost = series;
  }
  return out;
}
