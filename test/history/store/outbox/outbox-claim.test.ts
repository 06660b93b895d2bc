import { beforeAll, describe, expect, it } from 'vitest';
import type { HistoryStore } from '../../../../src/history/store/history-store.js';
import {
  claimDue,
  nextDue,
  pruneOutbox,
  releaseDeadClaims,
  settle,
} from '../../../../src/history/store/outbox/outbox-claim.js';
import { queueAlerts } from '../../../../src/history/store/outbox/outbox-queue.js';
import { outboxStatus, recentAlerts } from '../../../../src/history/store/outbox/outbox-read.js';
import { storeForBlock } from '../../../helpers/alerts/stores.js';
import { ALL, ANA, BIG, TEAM, T0, anomaly, inTeams, stale } from './outbox-fixture.js';

describe.each(['sqlite', 'postgres'] as const)('claiming and settling outbox rows on %s', (engine) => {
  const opened = storeForBlock(engine);
  let store: HistoryStore;
  beforeAll(() => {
    store = opened();
  });

  beforeAll(async () => {
    // What the queueing test leaves: 9 rows of 4 destinations.
    const alerts = [anomaly('u:ana@x.example', '49.99'), anomaly('u:bo@x.example', '120.50'), stale];
    await queueAlerts(store, alerts, [ALL, BIG, ANA, TEAM], { now: T0, inTeams });
    await queueAlerts(store, [anomaly('u:cy@x.example', '70')], [ALL]);
  });

  it('claims due rows once, frees a dead holder, and records outcomes', async () => {
    const now = Date.now();
    const first = await claimDue(store, { holder: 'h1/1/a', now, leaseMs: 60_000, limit: 3 });
    const second = await claimDue(store, { holder: 'h2/2/b', now, leaseMs: 60_000, limit: 100 });
    expect(first).toHaveLength(3);
    expect(second).toHaveLength(6);
    expect(new Set([...first, ...second].map((r) => r.id)).size).toBe(9);
    expect(await claimDue(store, { holder: 'h3/3/c', now, leaseMs: 60_000, limit: 100 })).toEqual([]);
    // h1's process 1 is gone: its rows are free again at once on h1; h2's pid 2 runs.
    expect(await releaseDeadClaims(store, 'h1', now, (pid) => pid !== 1)).toBe(3);
    expect(await releaseDeadClaims(store, 'h2', now, (pid) => pid !== 1)).toBe(0);
    const again = await claimDue(store, { holder: 'h1/9/d', now, leaseMs: 60_000, limit: 100 });
    expect(again.map((r) => r.id).sort()).toEqual(first.map((r) => r.id).sort());
    await settle(store, [again[0]!.id], { outcome: 'delivered' }, now + 5);
    await settle(store, [again[1]!.id], { outcome: 'retry', at: now + 20_000, error: '500: down' }, now);
    await settle(store, [again[2]!.id], { outcome: 'failed', error: '404: no such hook' }, now);
    // A lease over: the rows are claimed again by whoever comes.
    const late = await claimDue(store, { holder: 'h3/3/c', now: now + 61_000, leaseMs: 60_000, limit: 100 });
    expect(late.map((r) => r.id).sort()).toEqual([...second.map((r) => r.id), again[1]!.id].sort());
    // `alerts deliver`: whatever the backoff.
    await settle(store, [again[1]!.id], { outcome: 'retry', at: now + 3_600_000, error: '503' }, now);
    const forced = await claimDue(store, { holder: 'h4/4/e', now: now + 200_000, leaseMs: 1, limit: 100, all: true });
    expect(forced.map((r) => r.id)).toContain(again[1]!.id);

    const recent = await recentAlerts(store);
    expect(recent).toHaveLength(9);
    const byId = new Map(recent.map((r) => [r.id, r]));
    expect(byId.get(again[0]!.id)).toMatchObject({ state: 'delivered', attempts: 1, deliveredAt: now + 5 });
    expect(byId.get(again[1]!.id)).toMatchObject({ state: 'queued', attempts: 2, lastError: '503' });
    expect(byId.get(again[2]!.id)).toMatchObject({ state: 'failed', attempts: 1, lastError: '404: no such hook' });
    const status = await outboxStatus(store);
    expect(status.map((s) => s.destination)).toEqual(['all', 'ana', 'big', 'team']);
    expect(status.reduce((n, s) => n + s.queued + s.delivered + s.failed, 0)).toBe(9);
    expect(status.reduce((n, s) => n + s.delivered, 0)).toBe(1);
    expect(status.reduce((n, s) => n + s.failed, 0)).toBe(1);
  });

  it('knows when the next queued row is due, and prunes settled rows decided before a time', async () => {
    expect(await nextDue(store, ['nowhere'])).toBeUndefined();
    const next = await nextDue(store, ['all', 'ana', 'big', 'team']);
    const queued = (await recentAlerts(store)).filter((r) => r.state === 'queued');
    expect(next).toBe(Math.min(...queued.map((r) => r.nextAttemptAt)));
    // Everything here was decided at T0 or just after: a cutoff before T0 + 1 s drops the settled rows of T0.
    const settled = (await recentAlerts(store)).filter((r) => r.state !== 'queued' && r.createdAt < T0 + 1000);
    expect(await pruneOutbox(store, T0 + 1000)).toBe(settled.length);
    expect((await recentAlerts(store)).some((r) => r.state !== 'queued' && r.createdAt < T0 + 1000)).toBe(false);
    expect((await recentAlerts(store)).filter((r) => r.state === 'queued')).toHaveLength(queued.length);
  });
});
