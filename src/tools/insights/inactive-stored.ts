import type { DayRange } from '../../domain/dates.js';
import type { Freshness } from '../../domain/freshness.js';
import { formatDay } from '../../util/utc-date.js';
import type { IdentityRef } from '../../upstream/listing/merge.js';
import type { ToolContext } from '../types.js';
import { Unsafe, refsOf, sumById } from './digest-sums.js';

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
  ctx: ToolContext,
  { lookback, before, recent }: Periods,
  match: ((r: IdentityRef) => boolean) | undefined,
): Promise<{ gone: Gone[]; lastKnown: boolean; freshness: Freshness[] } | null> {
  const [earlier, latest, credits, lists] = await Promise.all([
    ctx.client.digests('active', before),
    ctx.client.digests('active', recent),
    ctx.client.digests('credits', lookback),
    ctx.client.digests('dau', before),
  ]);
  if (!earlier || !latest || !credits) return null;
  try {
    const activeDays = sumById(earlier);
    for (const d of latest) for (const id of d.ids) activeDays.delete(id);
    const refs = await refsOf(ctx, activeDays.keys());
    const ids = [...activeDays.keys()].filter((id) => refs.has(id) && (!match || match(refs.get(id)!)));
    const creditsOf = sumById(credits);
    // Newest day first: an identity's first day found is its last active day.
    const last = new Map<number, string>();
    const wanted = new Set(ids);
    for (const d of [...(lists ?? [])].sort((a, b) => b.days.start - a.days.start))
      for (const id of d.ids) if (wanted.has(id) && !last.has(id)) last.set(id, formatDay(d.days.start));
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
