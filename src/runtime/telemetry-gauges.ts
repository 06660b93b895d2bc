import type { Meter } from '@opentelemetry/api';
import { daysAt } from '../domain/published-days.js';
import type { LazyHistory } from '../history/serving/runtime-history.js';
import { storeStats } from '../history/store/store-stats.js';
import { outboxStatus } from '../history/store/outbox/outbox-read.js';
import { syncStatus } from '../telemetry/sync-status.js';

/** What the store's gauges read: the store (a scrape opens it, as a first call would) and the refresh hour. */
export interface StoreGauges {
  history: LazyHistory | undefined;
  refreshHour: number;
}

/**
 * The store's gauges, read at each collection: how many days the latest stored day is behind the latest published
 * one, the blocks of fetched data stored, the sync's progress (blocks done of its total), its last success, and the
 * alerts outbox (queued, delivered, failed by destination).
 */
export function watchStore(meter: Meter, { history, refreshHour }: StoreGauges): void {
  const gauge = (name: string, description: string, unit?: string) =>
    meter.createObservableGauge(name, { description, ...(unit ? { unit } : {}) });
  const lag = gauge('org_analytics.store.lag', 'Days the latest stored day is behind the latest published day', 'd');
  const blocks = gauge('org_analytics.store.blocks', 'Blocks of fetched data (days, months, windows) in the store');
  const done = gauge('org_analytics.sync.blocks.done', 'Blocks the sync under way (or the last) has stored');
  const total = gauge('org_analytics.sync.blocks.planned', 'Blocks the sync under way (or the last) planned');
  const success = gauge('org_analytics.sync.last_success', 'When a sync last stored all it planned (Unix time)', 's');
  const outbox = gauge('org_analytics.alerts.outbox', 'Alerts in the outbox by destination and state');
  meter.addBatchObservableCallback(
    async (result) => {
      result.observe(done, syncStatus.done);
      result.observe(total, syncStatus.total);
      if (syncStatus.lastSuccessAt !== undefined) result.observe(success, syncStatus.lastSuccessAt / 1000);
      const opened = await history?.open().catch(() => undefined);
      if (!opened) return;
      const stats = await storeStats(opened.source.store).catch(() => undefined);
      if (!stats) return;
      result.observe(blocks, stats.blocks);
      if (stats.latestDay !== undefined)
        result.observe(lag, Math.max(0, daysAt(Date.now(), refreshHour).published - stats.latestDay));
      // Destinations by the names the alerts file gives them: a few, chosen by the operator.
      for (const d of await outboxStatus(opened.source.store).catch(() => []))
        for (const state of ['queued', 'delivered', 'failed'] as const)
          result.observe(outbox, d[state], { destination: d.destination, state });
    },
    [lag, blocks, done, total, success, outbox],
  );
}
