import { resolveNamedRange, type NamedRange } from '../../domain/dates.js';
import type { Days } from '../../domain/published-days.js';
import type { HistoryStore } from '../store/history-store.js';
import { dropReplacedRange } from '../store/range-blocks.js';
import { KINDS, writeSpan, type Part } from '../store/derived/spans.js';

/**
 * Trailing spans: the ranges the tools are asked most, ending on the latest day, each summed whole after a sync
 * from the runs and days that cover it, so that "the last 30 days" reads one block. Their last days may still be
 * corrected: such a span expires with them, and is dropped with any of its days written again. A span written
 * replaces the range block of its window, if any.
 */

const TRAILING: readonly NamedRange[] = ['last_7_days', 'last_30_days', 'last_90_days', 'month_to_date'];

/** The blocks of a dataset inside [start, end] not yet due to be fetched again. */
async function held(store: HistoryStore, dataset: string, start: number, end: number, now: number): Promise<Part[]> {
  const blocks = await store.blocks(dataset, start, end, now);
  return blocks.filter((b) => b.start >= start && b.end <= end).map((b) => ({ ...b, dataset }));
}

/** Builds the trailing spans the store lacks, of each summed dataset of days; returns how many. */
export async function buildTrailingSpans(
  store: HistoryStore,
  days: Days,
  now: number,
  signal?: AbortSignal,
): Promise<number> {
  let built = 0;
  for (const k of KINDS.filter((kind) => kind.unit === 'day')) {
    for (const name of TRAILING) {
      if (signal?.aborted) return built;
      const range = resolveNamedRange(name, k.from.listing.dates.rules, days);
      const spans = await held(store, k.id, range.start, range.end, now);
      // Once the span is in, the range block fetched for the same window before its days goes (range-blocks.ts).
      if (spans.some((s) => s.start === range.start && s.end === range.end)) {
        await dropReplacedRange(store.db, k.id, range);
        continue;
      }
      // Final runs longest first, then days: the fewest blocks to sum.
      const chosen: Part[] = [];
      const free = (b: Part) => !chosen.some((c) => b.start <= c.end && b.end >= c.start);
      const runs = spans.filter((s) => s.expires_at === null).sort((a, b) => b.end - b.start - (a.end - a.start));
      for (const b of runs) if (free(b)) chosen.push(b);
      for (const b of await held(store, k.from.id, range.start, range.end, now)) if (free(b)) chosen.push(b);
      chosen.sort((a, b) => a.start - b.start);
      const tiles =
        chosen.length > 1 &&
        chosen[0]!.start === range.start &&
        chosen.at(-1)!.end === range.end &&
        chosen.every((c, i) => i === 0 || c.start === chosen[i - 1]!.end + 1);
      if (tiles && (await writeSpan(store.db, k, chosen))) {
        built++;
        await dropReplacedRange(store.db, k.id, range);
      }
    }
  }
  return built;
}
