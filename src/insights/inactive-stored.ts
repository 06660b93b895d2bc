import type { DayRange } from '../domain/dates.js';
import type { Freshness } from '../domain/freshness.js';
import { formatDay } from '../util/utc-date.js';
import type { IdentityRef } from '../upstream/listing/merge.js';
import { Unsafe, maxId, refsOf, sumById, type StoreReader } from './digest-sums.js';

/** An identity active before the inactive days and not in them. */
export interface Gone {
  row: IdentityRef;
  /** null: the store lacks the daily lists of the period. */
  last_active_date: string | null;
  active_days: number;
  credits: number;
}

export interface Periods {
  lookback: DayRange;
  before: DayRange;
  recent: DayRange;
}

/**
 * The inactive from the history store's digests: who was active in each period, their credits and their days
 * on the daily lists, summed per identity number; names are looked up only for those found. Null when the
 * store lacks a day of the activity or the credits (the listings then answer).
 */
export async function goneStored(
  ctx: StoreReader,
  { lookback, before, recent }: Periods,
  match: ((r: IdentityRef) => boolean) | undefined,
): Promise<{ gone: Gone[]; lastKnown: boolean; freshness: Freshness[] } | null> {
  const [earlier, latest, credits, lists] = await Promise.all([
    ctx.digests.digests('active', before),
    ctx.digests.digests('active', recent),
    ctx.digests.digests('credits', lookback),
    ctx.digests.digests('dau', before),
  ]);
  if (!earlier || !latest || !credits) return null;
  try {
    const activeDays = sumById(earlier);
    for (const d of latest) for (const id of d.ids) activeDays.delete(id);
    const refs = await refsOf(ctx, activeDays.keys());
    const ids = [...activeDays.keys()].filter((id) => refs.has(id) && (!match || match(refs.get(id)!)));
    const creditsOf = sumById(credits);
    // Each identity's latest day on the daily lists, in an array by number (millions of entries at 50,000 people).
    const lastDay = new Float64Array(ids.reduce((m, id) => Math.max(m, id), maxId(lists ?? [])) + 1);
    for (const d of lists ?? []) for (const id of d.ids) if (d.days.start > lastDay[id]!) lastDay[id] = d.days.start;
    const last = new Map(ids.filter((id) => lastDay[id]).map((id) => [id, formatDay(lastDay[id]!)]));
    const lastKnown = lists !== null;
    const gone = ids.map((id) => ({
      row: refs.get(id)!,
      last_active_date: lastKnown ? (last.get(id) ?? null) : null,
      active_days: activeDays.get(id)!,
      credits: creditsOf.get(id) ?? 0,
    }));
    const freshness = [...earlier, ...latest, ...credits, ...(lists ?? [])].map((d) => d.freshness);
    return { gone, lastKnown, freshness };
  } catch (error) {
    if (error instanceof Unsafe) return null;
    throw error;
  }
}
