import type { DayRange } from '../domain/dates.js';
import type { DigestName } from '../upstream/history-port.js';
import type { Series } from './anomaly-data.js';
import type { StoreReader } from './digest-sums.js';
import type { Daily } from './anomaly-rules.js';
import { GROUP_METRICS, GroupDays, type GroupLens, type GroupMetric } from './anomaly-groups.js';

const DIGEST: Record<GroupMetric, DigestName> = { credits: 'credits', billed: 'billed', active: 'dau' };

/** Days of digests read at a time. */
const READ_DAYS = 7;

/**
 * The groups' days from the history store's daily digests (credits, billed USD, daily lists of people); false
 * when the store lacks a day of any of them. Store numbers are named once each.
 */
export async function storedGroupDays(ctx: Pick<StoreReader, 'digests'>, into: GroupDays, days: DayRange) {
  const keyOf: Array<string | undefined> = [];
  for (const metric of GROUP_METRICS)
    for (let start = days.start; start <= days.end; start += READ_DAYS) {
      const chunk = { start, end: Math.min(days.end, start + READ_DAYS - 1) };
      const digests = await ctx.digests.digests(DIGEST[metric], chunk, true);
      if (!digests) return false;
      const unknown = new Set<number>();
      for (const d of digests) for (const id of d.ids) if (keyOf[id] === undefined) unknown.add(id);
      if (unknown.size)
        for (const [id, name] of await ctx.digests.names(unknown))
          keyOf[id] = name.startsWith('u:') ? `u:${name.slice(2).toLowerCase()}` : name;
      for (const d of digests) {
        for (let i = 0; i < d.ids.length; i++) {
          const key = keyOf[d.ids[i]!];
          // The daily lists count people: service accounts are active identities, not people.
          if (key === undefined || (metric === 'active' && !key.startsWith('u:'))) continue;
          into.add(metric, key, d.days.start, metric === 'active' ? 1 : d.v[i]!, metric === 'active' ? 0 : d.scale);
        }
        if (metric !== 'active') into.add(metric, null, d.days.start, d.rest, d.scale);
      }
    }
  return true;
}

/** The groups' days from per-identity series read from the listings (each identity's credits, and billed USD). */
export function seriesGroupDays(
  into: GroupDays,
  days: DayRange,
  credits: ReadonlyMap<string, Daily>,
  billed?: { scale: number; byIdentity: ReadonlyMap<string, Daily> },
): void {
  const each = (metric: GroupMetric, series: ReadonlyMap<string, Daily>, scale: number) => {
    for (const [key, daily] of series)
      for (let d = days.start; d <= days.end; d++) {
        const v = daily.get(d);
        if (v !== undefined)
          into.add(metric, key, d, v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : String(v), scale);
      }
  };
  each('credits', credits, 0);
  if (billed) each('billed', billed.byIdentity, billed.scale);
}

/**
 * The groups' series over `window` and the period's rows: from the store's daily digests, else from the series
 * the listings gave (credits, and billed USD where read). Undefined when neither holds every identity.
 */
export async function groupDaysOf(
  ctx: Pick<StoreReader, 'digests'>,
  series: Series,
  window: DayRange,
  judged: DayRange,
  lens: GroupLens,
) {
  const stored = new GroupDays(window, judged, lens);
  if (await storedGroupDays(ctx, stored, window)) return stored.finish();
  if (!series.complete) return undefined;
  const listed = new GroupDays(window, judged, lens);
  seriesGroupDays(listed, window, series.credits, series.cost);
  return listed.finish();
}
