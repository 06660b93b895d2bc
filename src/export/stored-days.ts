import type { Block, HistoryStore } from '../history/store/history-store.js';
import { formatDay } from '../util/utc-date.js';

/** Which days of [from, to] the store holds as day blocks of a dataset, and which it lacks. */
export async function storedDays(
  store: HistoryStore,
  dataset: string,
  from: number,
  to: number,
): Promise<{ blocks: Block[]; missing: number[] }> {
  const blocks = (await store.blocks(dataset, from, to)).filter(
    (b) => b.grain === 'day' && b.start === b.end && b.start >= from && b.end <= to,
  );
  const held = new Set(blocks.map((b) => b.start));
  const missing: number[] = [];
  for (let day = from; day <= to; day++) if (!held.has(day)) missing.push(day);
  return { blocks, missing };
}

/** Days as short runs: 2026-01-01..2026-01-05, 2026-01-09. */
export function dayRuns(days: readonly number[]): string {
  const runs: string[] = [];
  for (let i = 0; i < days.length;) {
    let j = i;
    while (j + 1 < days.length && days[j + 1] === days[j]! + 1) j++;
    runs.push(i === j ? formatDay(days[i]!) : `${formatDay(days[i]!)}..${formatDay(days[j]!)}`);
    i = j + 1;
  }
  return runs.join(', ');
}

/** The stored rows, one day block at a time, oldest first: only one day is in memory at once. */
export async function* storedRows(
  store: HistoryStore,
  dataset: string,
  blocks: readonly Block[],
): AsyncGenerator<{ date: string; rows: Record<string, unknown>[] }> {
  for (const b of blocks) yield { date: formatDay(b.start), rows: await store.rows(dataset, b.start, b.end) };
}
