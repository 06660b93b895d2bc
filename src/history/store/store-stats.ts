import { kindOf } from './block-ids.js';
import type { HistoryStore } from './history-store.js';

/** What the store's gauges show: the blocks of fetched data it holds, and the last day any of them reaches. */
export interface StoreStats {
  blocks: number;
  latestDay: number | undefined;
}

/** Read per dataset and summed over the fetched ones: derived blocks (rollups, spans, digests) are not counted. */
export async function storeStats(store: HistoryStore): Promise<StoreStats> {
  const rows = await store.db
    .selectFrom('history_blocks')
    .select((eb) => ['dataset', eb.fn.countAll<number>().as('blocks'), eb.fn.max<number>('end_day').as('latest')])
    .groupBy('dataset')
    .execute();
  let blocks = 0;
  let latestDay: number | undefined;
  for (const row of rows.filter((r) => kindOf(r.dataset) === 'dataset')) {
    blocks += Number(row.blocks);
    latestDay = Math.max(latestDay ?? Number(row.latest), Number(row.latest));
  }
  return { blocks, latestDay };
}
