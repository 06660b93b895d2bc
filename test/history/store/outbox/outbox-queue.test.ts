import { beforeAll, describe, expect, it } from 'vitest';
import type { HistoryStore } from '../../../../src/history/store/history-store.js';
import { queueAlerts } from '../../../../src/history/store/outbox/outbox-queue.js';
import { storeForBlock } from '../../../helpers/alerts/stores.js';
import { ALL, ANA, BIG, TEAM, T0, anomaly, inTeams, stale } from './outbox-fixture.js';

describe.each(['sqlite', 'postgres'] as const)('queueing alerts in the outbox on %s', (engine) => {
  const opened = storeForBlock(engine);
  let store: HistoryStore;
  beforeAll(() => {
    store = opened();
  });

  it('queues one row per alert and destination that wants it, once per dedup key', async () => {
    const alerts = [anomaly('u:ana@x.example', '49.99'), anomaly('u:bo@x.example', '120.50'), stale];
    const queued = await queueAlerts(store, alerts, [ALL, BIG, ANA, TEAM], { now: T0, inTeams, organization: 'acme' });
    const pairs = queued.map((q) => `${q.destination} ${q.dedupKey}`).sort();
    expect(pairs).toEqual(
      [
        'all anomaly.detected:u:ana@x.example:2026-11-20',
        'all anomaly.detected:u:bo@x.example:2026-11-20',
        'all data.stale:organization:2026-11-21',
        'ana anomaly.detected:u:ana@x.example:2026-11-20',
        'ana data.stale:organization:2026-11-21',
        'big anomaly.detected:u:bo@x.example:2026-11-20',
        'team anomaly.detected:u:bo@x.example:2026-11-20',
        'team data.stale:organization:2026-11-21',
      ].sort(),
    );
    expect(new Set(queued.map((q) => q.id)).size).toBe(queued.length);
    expect(queued.every((q) => /^msg_[0-9a-f]{32}$/.test(q.id) && q.state === 'queued')).toBe(true);
    expect(JSON.parse(queued.find((q) => q.destination === 'big')!.payload)).toEqual({
      type: 'anomaly.detected',
      timestamp: '2026-11-21T04:20:11.000Z',
      data: { organization: 'acme', anomalies: [{ user_email: 'bo@x.example', excess_usd: '120.50' }] },
    });
    // The same decision again (a repeated sync, another replica): nothing new.
    expect(await queueAlerts(store, alerts, [ALL, BIG, ANA, TEAM], { now: T0 + 1000, inTeams })).toEqual([]);
    // Two deciders at once: one of them queues each row.
    const next = [anomaly('u:cy@x.example', '70')];
    const [a, b] = await Promise.all([queueAlerts(store, next, [ALL]), queueAlerts(store, next, [ALL])]);
    expect(a.length + b.length).toBe(1);
  });
});
