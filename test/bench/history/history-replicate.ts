import { earliestDay } from '../../../src/domain/dates.js';
import { DATASETS } from '../../../src/history/store/datasets.js';
import { ROLLUPS, rollupDataset } from '../../../src/history/store/derived/cost-rollups.js';
import { lastStorableDay, monthOf } from '../../../src/history/store/store-rules.js';
import { formatDay } from '../../../src/util/utc-date.js';
import type { HistoryRig } from './history-fixture.js';

type Row = Record<string, unknown>;

function redate(rows: Row[], from: number, to: number): Row[] {
  const a = formatDay(from);
  const b = formatDay(to);
  return rows.map((row) => {
    const out = { ...row };
    for (const f of ['date', 'start_date', 'end_date']) if (out[f] === a) out[f] = b;
    return out;
  });
}

/** The datasets the timed questions read (user activity, credits, cost by user or resource, DAU counts). */
export const QUESTIONED = new Set([
  'dau-count',
  'user-activity',
  'user-activity-months',
  'credits-by-date-model',
  'credits-by-model-months',
  ...ROLLUPS.map((r) => r.id),
]);

/**
 * Fills the store up to `days` days and `months` whole months by copying the blocks a shorter sync
 * stored (a day's rows to another day, a month's to another month), so that answers from the store can
 * be timed at full volume without syncing hours. `only`: the datasets copied (default all of them).
 * Returns the blocks written.
 */
export async function replicate(
  rig: HistoryRig,
  days: number,
  months: number,
  only?: ReadonlySet<string>,
): Promise<number> {
  const store = rig.history.source.store;
  const published = rig.client.days();
  let written = 0;
  // The cost rollups too: a sync writes them with their blocks, and `put` writes only the blocks it is given.
  for (const dataset of [...DATASETS, ...ROLLUPS.map(rollupDataset)]) {
    if (only && !only.has(dataset.id)) continue;
    const held = (await store.blocks(dataset.id, 0, 1_000_000)).filter((b) =>
      dataset.grain === 'day' ? b.start === b.end : b.start !== b.end,
    );
    if (held.length === 0) continue;
    const have = new Set(held.map((b) => b.start));
    const targets: Array<{ start: number; end: number }> = [];
    if (dataset.grain === 'day') {
      const last = lastStorableDay(dataset, published);
      // As the sync stores them: the last `days` published days, and credit usage's days after them.
      for (let d = published.published - days + 1; d <= last; d++) if (!have.has(d)) targets.push({ start: d, end: d });
    } else {
      const first = earliestDay(published.today);
      let month = monthOf(held.at(-1)!.start);
      for (let i = 0; i < months && month.start >= first; i++, month = monthOf(month.start - 1))
        if (!have.has(month.start)) targets.push(month);
    }
    for (const [i, t] of targets.entries()) {
      const from = held[i % held.length]!;
      const rows = await store.rows(dataset.id, from.start, from.end);
      await store.put([
        {
          dataset: dataset.id,
          start: t.start,
          end: t.end,
          grain: dataset.grain,
          fetched_at: from.fetched_at,
          expires_at: null,
          items: dataset.grain === 'day' ? redate(rows, from.start, t.start) : rows,
        },
      ]);
      written++;
    }
  }
  return written;
}
