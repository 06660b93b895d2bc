import type { DayRange } from '../domain/dates.js';
import type { Freshness } from '../domain/freshness.js';
import { parseIsoDay } from '../util/utc-date.js';
import type { GroupByKey } from '../contract/enums.js';
import { costAnalytics, type CostPoint } from '../upstream/endpoints/cost-analytics.js';
import { creditUsageByUser } from '../upstream/endpoints/credit-usage-by-user.js';
import { dauCount } from '../upstream/endpoints/dau-count.js';
import { identityKey, type IdentityRef } from '../upstream/listing/merge.js';
import { listAll } from '../upstream/listing/list-all.js';
import type { StoreReader } from './digest-sums.js';
import { BASELINE_DAYS, scaleOf, unitsAt, type Daily } from './anomaly-rules.js';
import { storedIdentitySeries } from './anomaly-stored.js';

/** Days listed at once: the peak memory of a read is a slice's rows, not the whole window's. */
const SLICE = 10;

/** What reading the series takes: a tool's context, or the sync's. */
export type ReadContext = StoreReader;

/** The daily series find_anomalies reads, keyed by identity, resource or nothing (the organization). */
export interface Series {
  identities: Map<string, IdentityRef>;
  credits: ReadonlyMap<string, Daily>;
  orgCredits: Daily;
  activeUsers: Daily;
  /** Billed USD, at `scale` decimals; absent on the live path. */
  cost?: { scale: number; byIdentity: ReadonlyMap<string, Daily>; org: Daily; byResource: ReadonlyMap<string, Daily> };
  /** Whether the per-identity series hold every identity (the listings'); the store's keep only possible spikes. */
  complete: boolean;
  freshness: Freshness[];
}

type Days = Map<number, bigint>;

const add = (m: Map<string, Days>, key: string, day: number, v: bigint) => {
  let daily = m.get(key);
  if (!daily) m.set(key, (daily = new Map()));
  daily.set(day, (daily.get(day) ?? 0n) + v);
};

/**
 * The first day of `period` whose 28 days before are all in the history store; null without a store.
 * Probed on the daily active counts and the credits by date (each day's the sync stores with cost): the
 * days held end at the latest. The counts alone would not do: they are kept as deep as the months reach.
 */
export async function firstHeldDay(ctx: ReadContext, period: DayRange): Promise<number | null> {
  if (ctx.client.days().storedFrom === undefined) return null;
  const held = async (d: number) => {
    const days = { start: d - BASELINE_DAYS, end: period.end };
    return (
      (await ctx.client.stored(dauCount, { days })) &&
      (await ctx.client.stored(creditUsageByUser, { days, by_date: true }))
    );
  };
  let [lo, hi] = [period.start, period.end + 1];
  if (await held(lo)) return lo;
  while (lo + 1 < hi) {
    const mid = Math.floor((lo + hi) / 2);
    if (await held(mid)) hi = mid;
    else lo = mid;
  }
  return hi;
}

/**
 * The series of `days` (baselines included): credits and active users always, billed cost with `cost`.
 * `deadline` (epoch ms): one budget for every listing read, not one each; past it the listing being read
 * answers "not complete yet" and goes on in the background (its pages cached for the next call).
 */
export async function readSeries(ctx: ReadContext, days: DayRange, cost: boolean, deadline?: number): Promise<Series> {
  const left = () => (deadline === undefined ? undefined : deadline - Date.now());
  // A few dozen dates among hundreds of thousands of rows: each parsed once.
  const dayNumbers = new Map<string, number>();
  const dayOf = (date: string) => {
    let d = dayNumbers.get(date);
    if (d === undefined) dayNumbers.set(date, (d = parseIsoDay(date)!));
    return d;
  };
  const day = 'COST_ANALYTICS_TIME_GRANULARITY_DAY' as const;
  // A listing at a time, SLICE days at a time, each folded into its series before the next is read: at 10,000
  // people 60 days of a listing are gigabytes on their way through, and side by side gains nothing on one thread.
  const slices: DayRange[] = [];
  for (let start = days.start; start <= days.end; start += SLICE)
    slices.push({ start, end: Math.min(days.end, start + SLICE - 1) });
  // From the store, credits and cost per identity are its digests; else the listings, folded as they come.
  const stored = cost ? await storedIdentitySeries(ctx, days) : null;
  const identities = stored?.identities ?? new Map<string, IdentityRef>();
  const credits = new Map<string, Days>();
  const orgCredits: Days = new Map();
  const freshness: Freshness[] = stored ? [...stored.freshness] : [];
  for (const slice of stored ? [] : slices) {
    const answer = await listAll(ctx, creditUsageByUser, { days: slice, by_date: true }, left());
    freshness.push(answer.freshness);
    for (const r of answer.data) {
      const key = identityKey(r);
      const d = dayOf(r.date!);
      identities.set(
        key,
        r.user_email !== undefined ? { user_email: r.user_email } : { service_account_name: r.service_account_name! },
      );
      add(credits, key, d, BigInt(r.credits_consumed));
      orgCredits.set(d, (orgCredits.get(d) ?? 0n) + BigInt(r.credits_consumed));
    }
  }
  const out: Series = {
    identities,
    credits: stored?.credits ?? credits,
    orgCredits: stored?.orgCredits ?? orgCredits,
    activeUsers: new Map(),
    complete: !stored,
    freshness,
  };
  const active = await listAll(ctx, dauCount, { days }, left());
  out.freshness.push(active.freshness);
  const activeUsers: Days = new Map();
  for (const r of active.data) activeUsers.set(dayOf(r.date), BigInt(r.user_count));
  out.activeUsers = activeUsers;
  if (!cost) return out;
  // Billed USD of each listing at its own scale, then all at the largest.
  const billedBy = async (keys: GroupByKey[], keyOf: (p: CostPoint) => string | undefined) => {
    const parts: Array<{ scale: number; series: Map<string, Days> }> = [];
    for (const slice of slices) {
      const answer = await listAll(ctx, costAnalytics, { days: slice, group_by_keys: keys, granularity: day }, left());
      out.freshness.push(answer.freshness);
      const scale = answer.data.reduce((n, p) => Math.max(n, scaleOf(p.cost_metrics.billed_amount_usd)), 0);
      const series = new Map<string, Days>();
      for (const p of answer.data) {
        const key = keyOf(p);
        if (key !== undefined) add(series, key, dayOf(p.start_date), unitsAt(p.cost_metrics.billed_amount_usd, scale));
      }
      parts.push({ scale, series });
    }
    return parts;
  };
  const byUser = stored
    ? []
    : await billedBy(['COST_ANALYTICS_GROUP_BY_USER'], (p) => {
        const u = p.group_by_values.user_info;
        // Bots and deleted accounts have no identity to name: they count in the organization's cost only.
        const ref =
          u?.user_email !== undefined
            ? { user_email: u.user_email }
            : u?.service_account_name !== undefined
              ? { service_account_name: u.service_account_name }
              : undefined;
        if (!ref) return undefined;
        const key = identityKey(ref);
        out.identities.set(key, ref);
        return key;
      });
  const total = await billedBy([], () => 'organization');
  const byResource = await billedBy(
    ['COST_ANALYTICS_GROUP_BY_RESOURCE'],
    (p) => p.group_by_values.resource_display_name ?? '?',
  );
  const scale = Math.max(stored?.scale ?? 0, ...[...byUser, ...total, ...byResource].map((p) => p.scale));
  // The slices (days apart) merged into one series, each at the largest scale.
  const at = (parts: Array<{ scale: number; series: Map<string, Days> }>) => {
    const merged = new Map<string, Days>();
    for (const { scale: from, series } of parts) {
      const k = 10n ** BigInt(scale - from);
      for (const [key, daily] of series) for (const [d, v] of daily) add(merged, key, d, v * k);
    }
    return merged;
  };
  out.cost = {
    scale,
    byIdentity:
      stored && stored.scale === scale
        ? stored.billed
        : at([...byUser, ...(stored ? [{ scale: stored.scale, series: asDays(stored.billed, days) }] : [])]),
    org: at(total).get('organization') ?? new Map(),
    byResource: at(byResource),
  };
  return out;
}

/** Dense series as maps of their days with a value (to be raised to another scale). */
function asDays(series: ReadonlyMap<string, Daily>, days: DayRange): Map<string, Days> {
  const out = new Map<string, Days>();
  for (const [key, daily] of series) {
    const m: Days = new Map();
    for (let d = days.start; d <= days.end; d++) {
      const v = daily.get(d);
      if (v !== undefined) m.set(d, v);
    }
    out.set(key, m);
  }
  return out;
}
