import { performance } from 'node:perf_hooks';
import { deliverDue } from '../../../src/alerts/deliver.js';
import { startDeliveryLoop } from '../../../src/alerts/delivery-loop.js';
import { createLogger } from '../../../src/logger.js';
import { queueAlerts } from '../../../src/history/store/outbox/outbox-queue.js';
import { receiver } from '../../helpers/alerts/receivers.js';
import { alerts, pct, queue, webhookTo } from './alerts-load.js';
import { testStore } from '../../helpers/alerts/stores.js';

const log = createLogger(
  'error',
  (t) => t,
  () => {},
);
const DELIVERIES = Number(process.env.BENCH_ALERTS_DELIVERIES ?? 2000);
const DRAIN = Number(process.env.BENCH_ALERTS_DRAIN ?? 10_000);
const DECISIONS = 300;

async function onEngine(engine: 'sqlite' | 'postgres', print: (line: string) => void): Promise<void> {
  const where = testStore(engine);
  const store = await where.open();
  const hook = await receiver();
  const destination = webhookTo(hook);
  try {
    // Deliveries per second: signed webhooks to a receiver answering 200 at once.
    await queue(store, DELIVERIES, destination);
    let t = performance.now();
    const sent = await deliverDue(store, [destination], { log });
    const perS = sent.delivered / ((performance.now() - t) / 1000);
    print(`  ${engine}: ${perS.toFixed(0)} deliveries/s (${sent.delivered} signed webhooks, 8 in flight)`);

    // Decision to delivery: a server's loop, kicked after each decision of 5 alerts, as after a sync.
    const loop = startDeliveryLoop(store, [destination], { log });
    const decidedAt = new Map<string, number>();
    const latencies: number[] = [];
    const before = hook.received.length;
    try {
      for (let d = 0; d < DECISIONS; d++) {
        const at = performance.now();
        for (const q of await queueAlerts(store, alerts(5), [destination])) decidedAt.set(q.id, at);
        await loop.kick();
        for (const r of hook.received.slice(before + latencies.length))
          latencies.push(r.at - decidedAt.get(String(r.headers['webhook-id']))!);
      }
    } finally {
      await loop.stop();
    }
    print(
      `  ${engine}: decision to delivery p50 ${pct(latencies, 0.5).toFixed(1)} ms, p99 ${pct(latencies, 0.99).toFixed(1)} ms (${latencies.length} alerts, ${DECISIONS} decisions of 5)`,
    );

    // A receiver down while 10,000 alerts were queued, then back: the time to drain them.
    await queue(store, DRAIN, destination);
    t = performance.now();
    const drained = await deliverDue(store, [destination], { log, all: true });
    const s = (performance.now() - t) / 1000;
    print(`  ${engine}: ${drained.delivered} queued alerts drained in ${s.toFixed(1)} s once the receiver is back`);
  } finally {
    await hook.close();
    await store.close();
    await where.remove();
  }
}

/** Issue 35: the outbox's deliveries per second, latency from decision to delivery, and a 10,000-alert drain. */
export async function benchAlerts(print: (line: string) => void): Promise<void> {
  print('alerts outbox (webhooks to a local receiver, SQLite and PostgreSQL):');
  for (const engine of ['sqlite', 'postgres'] as const) await onEngine(engine, print);
}
