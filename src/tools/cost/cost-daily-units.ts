import type { DayRange } from '../../domain/dates.js';
import { costUnits, type SegmentUnits } from '../../insights/digest-cost.js';
import type { ToolContext } from '../types.js';

/** A range's days, each a range of its own. */
export const daysIn = (r: DayRange): DayRange[] =>
  Array.from({ length: r.end - r.start + 1 }, (_, i) => ({ start: r.start + i, end: r.start + i }));

/** Each day's sums on their own (a day is its own group row), brought to one scale so that totals add up. */
export async function dailyUnits(ctx: ToolContext, days: readonly DayRange[]): Promise<SegmentUnits | null> {
  const each: SegmentUnits[] = [];
  // Identity keys read once for every day.
  const keys: string[] = [];
  for (const d of days) {
    const got = await costUnits(ctx, [{ days: d, bucket: 0 }], () => false, keys);
    if (!got) return null;
    each.push(got);
  }
  const scale = Math.max(0, ...each.map((e) => e.scale));
  const creditScale = Math.max(0, ...each.map((e) => e.creditScale));
  const parts: SegmentUnits['parts'] = [];
  for (const e of each) {
    const [kb, kc] = [10 ** (scale - e.scale), 10 ** (creditScale - e.creditScale)];
    const ids = new Map<string, { b: number; c: number }>();
    for (const [id, v] of e.parts[0]!.ids) {
      const [b, c] = [v.b * kb, v.c * kc];
      if (!Number.isSafeInteger(b) || !Number.isSafeInteger(c)) return null;
      ids.set(id, { b, c });
    }
    const rest = e.parts[0]!.rest;
    parts.push({ ids, rest: rest && { b: rest.b * BigInt(kb), c: rest.c * BigInt(kc) } });
  }
  return { scale, creditScale, parts };
}
