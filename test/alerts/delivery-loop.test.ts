import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Destination } from '../../src/alerts/destinations.js';
import { startDeliveryLoop } from '../../src/alerts/delivery-loop.js';
import { createLogger } from '../../src/logger.js';
import type { HistoryStore } from '../../src/history/store/history-store.js';
import { queueAlerts } from '../../src/history/store/outbox/outbox-queue.js';
import { recentAlerts } from '../../src/history/store/outbox/outbox-read.js';
import { receiver, verified, WEBHOOK_SECRET, type Receiver } from '../helpers/alerts/receivers.js';
import { testStore, type TestStore } from '../helpers/alerts/stores.js';

const log = createLogger(
  'error',
  (t) => t,
  () => {},
);

describe("a server's delivery loop", () => {
  let where: TestStore;
  let store: HistoryStore;
  let hook: Receiver;
  let destination: Destination;
  beforeAll(async () => {
    where = testStore('sqlite');
    store = await where.open();
    hook = await receiver();
    destination = { name: 'hook', kind: 'webhook', events: ['*'], url: new URL(hook.url), secret: WEBHOOK_SECRET };
  });
  afterAll(async () => {
    await hook?.close();
    await store?.close();
    await where?.remove();
  });

  it('delivers what was queued before it started, and retries a 503 on its own within 30 s', async () => {
    const [queued] = await queueAlerts(
      store,
      [{ type: 'data.stale', dedupKey: 'data.stale:organization:2026-11-24', data: { days_behind: 3 }, scope: {} }],
      [destination],
    );
    hook.script.push([503, 'maintenance']);
    // The defaults a --sync server runs with: every 10 s, first retry after 8 to 12 s.
    const loop = startDeliveryLoop(store, [destination], { log });
    try {
      for (let i = 0; i < 700 && hook.received.length < 2; i++) await new Promise((r) => setTimeout(r, 50));
    } finally {
      await loop.stop();
    }
    expect(hook.received).toHaveLength(2);
    expect(hook.received[1]!.at - hook.received[0]!.at).toBeLessThan(30_000);
    expect(hook.received.map((r) => verified(r).id)).toEqual([queued!.id, queued!.id]);
    expect((await recentAlerts(store, 1))[0]).toMatchObject({ state: 'delivered', attempts: 2 });
  }, 45_000);
});
