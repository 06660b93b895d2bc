import type { RateGroup } from '../../contract/limits.js';
import { earliestDay, type DayRange } from '../../domain/dates.js';
import type { Days } from '../../domain/published-days.js';
import { DATASETS, groupOf, type Dataset } from '../store/datasets.js';
import type { HistoryStore } from '../store/history-store.js';
import { rangeTasks } from '../store/range-blocks.js';
import { lastStorableDay, monthOf } from '../store/store-rules.js';

/** One request (with its pages) the sync makes: a day, a window of days, a month or a range block of one dataset. */
export interface SyncTask {
  dataset: Dataset;
  days: DayRange;
  /**
   * Fetched before any other of its rate group, at the full documented rate: what the questions asked most read
   * (the range blocks, and the newest window of the daily series).
   */
  first?: boolean;
}

export interface PlanOptions {
  /** Backfill depth in days, newest first (--history-days). */
  historyDays: number;
  /** Complete calendar months kept as one block each (--history-months); 0: days only. */
  historyMonths: number;
}

/** The daily series are one request per 90 days: they are kept as deep as the months reach, at almost no cost. */
function depthOf(dataset: Dataset, options: PlanOptions): number {
  return dataset.windowDays === 90 ? Math.max(options.historyDays, options.historyMonths * 31) : options.historyDays;
}

/**
 * What is left to fetch, per rate group: first the range blocks of the questions asked most and the newest
 * window of the daily series (range-blocks.ts), then days, newest first, then months, newest first. A block
 * stored and not expired is never fetched again; expired ones (the last two days) are.
 */
export async function planSync(store: HistoryStore, days: Days, now: number, options: PlanOptions) {
  const first = earliestDay(days.today);
  // The same first day for every dataset (credit usage also holds the days after the latest published one),
  // so that a question over the last N published days finds all it reads.
  const fromOf = (dataset: Dataset) => Math.max(first, days.published - depthOf(dataset, options) + 1);
  const daily: SyncTask[] = [];
  for (const dataset of DATASETS.filter((d) => d.per === 'day' || d.per === 'window')) {
    const last = lastStorableDay(dataset, days);
    const from = fromOf(dataset);
    if (from > last) continue;
    const held = new Set<number>();
    for (const b of await store.blocks(dataset.id, from, last, now)) if (b.start === b.end) held.add(b.start);
    const step = dataset.per === 'window' ? dataset.windowDays! : 1;
    for (let end = last; end >= from; end -= step) {
      // Only the span of the window's missing days: the days around them that are final are not asked again.
      const missing: number[] = [];
      for (let d = Math.max(from, end - step + 1); d <= end; d++) if (!held.has(d)) missing.push(d);
      // A daily series' newest window is one request: the active user counts of the last 90 days.
      const newest = dataset.windowDays === 90 && end === last;
      if (missing.length) daily.push({ dataset, days: { start: missing[0]!, end: missing.at(-1)! }, first: newest });
    }
  }
  const ranges = (await rangeTasks(store, days, now, fromOf)).map((t) => ({ ...t, first: true }));
  const monthly: SyncTask[] = [];
  for (const dataset of DATASETS.filter((d) => d.per === 'month')) {
    let month = monthOf(days.published - 2);
    // A month is stored once it is complete and past the days that may still be corrected.
    if (month.end > days.published - 2) month = monthOf(month.start - 1);
    for (let i = 0; i < options.historyMonths && month.start >= first; i++, month = monthOf(month.start - 1)) {
      const held = await store.blocks(dataset.id, month.start, month.end, now);
      if (!held.some((b) => b.start === month.start && b.end === month.end)) monthly.push({ dataset, days: month });
    }
  }
  const tasks = new Map<RateGroup, SyncTask[]>();
  const ordered = [...daily.filter((t) => t.first), ...ranges, ...daily.filter((t) => !t.first), ...monthly];
  for (const t of ordered) {
    const group = tasks.get(groupOf(t.dataset)) ?? [];
    group.push(t);
    tasks.set(groupOf(t.dataset), group);
  }
  return tasks;
}
