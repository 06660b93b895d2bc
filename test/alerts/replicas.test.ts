import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AlertCandidate } from '../../src/domain/alerts.js';
import { deliverDue } from '../../src/alerts/deliver.js';
import type { Destination } from '../../src/alerts/destinations.js';
import { startDeliveryLoop } from '../../src/alerts/delivery-loop.js';
import { createLogger } from '../../src/logger.js';
import type { HistoryStore } from '../../src/history/store/history-store.js';
import { queueAlerts } from '../../src/history/store/outbox/outbox-queue.js';
import { outboxStatus } from '../../src/history/store/outbox/outbox-read.js';
import { receiver, verified, WEBHOOK_SECRET, type Receiver } from '../helpers/alerts/receivers.js';
import { testStore, type TestStore } from '../helpers/alerts/stores.js';

const log = createLogger(
  'error',
  (t) => t,
  () => {},
);
const candidates = (from: number, n: number): AlertCandidate[] =>
  Array.from({ length: n }, (_, i) => ({
    type: 'budget.threshold',
    dedupKey: `budget.threshold:u:p${from + i}@x.example:100:2026-11`,
    data: { user_email: `p${from + i}@x.example`, limit: '10', used: '10.01', threshold: '100' },
    scope: { identities: [`u:p${from + i}@x.example`] },
  }));

describe('two servers sharing PostgreSQL (a schema of their own)', () => {
  let where: TestStore;
  let a: HistoryStore;
  let b: HistoryStore;
  let hook: Receiver;
  let destination: Destination;
  beforeAll(async () => {
    where = testStore('postgres');
    [a, b] = [await where.open(), await where.open()];
    hook = await receiver();
    destination = { name: 'hook', kind: 'webhook', events: ['*'], url: new URL(hook.url), secret: WEBHOOK_SECRET };
  });
  afterAll(async () => {
    await hook?.close();
    await a?.close();
    await b?.close();
    await where?.remove();
  });

  it('both decide the same alerts after their syncs: each is queued once, and delivered once', async () => {
    const decided = candidates(0, 300);
    const [byA, byB] = await Promise.all([
      queueAlerts(a, decided, [destination]),
      queueAlerts(b, decided, [destination]),
    ]);
    expect(byA.length + byB.length).toBe(300);
    const [one, two] = await Promise.all([
      deliverDue(a, [destination], { log, batch: 20, concurrency: 4 }),
      deliverDue(b, [destination], { log, batch: 20, concurrency: 4 }),
    ]);
    expect(one.delivered + two.delivered).toBe(300);
    // Both took part: the claims interleave rather than one replica taking everything.
    expect(Math.min(one.delivered, two.delivered)).toBeGreaterThan(0);
    const ids = hook.received.map((r) => verified(r).id);
    expect(ids).toHaveLength(300);
    expect(new Set(ids).size).toBe(300);
    expect(await outboxStatus(a)).toMatchObject([{ destination: 'hook', queued: 0, delivered: 300, failed: 0 }]);
  });

  it('their delivery loops, kicked after each sync, deliver each alert once', async () => {
    hook.received.length = 0;
    const loops = [a, b].map((s) => startDeliveryLoop(s, [destination], { log, everyMs: 50, batch: 10 }));
    try {
      for (let round = 0; round < 5; round++) {
        const decided = candidates(1000 + round * 40, 40);
        await Promise.all([queueAlerts(a, decided, [destination]), queueAlerts(b, decided, [destination])]);
        await Promise.all(loops.map((l) => l.kick()));
      }
      for (let i = 0; i < 200 && hook.received.length < 200; i++) await new Promise((r) => setTimeout(r, 25));
    } finally {
      await Promise.all(loops.map((l) => l.stop()));
    }
    const ids = hook.received.map((r) => verified(r).id);
    expect(ids).toHaveLength(200);
    expect(new Set(ids).size).toBe(200);
  });
});
