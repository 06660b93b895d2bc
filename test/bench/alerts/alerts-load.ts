import type { AlertCandidate } from '../../../src/domain/alerts.js';
import type { Destination } from '../../../src/alerts/destinations.js';
import type { HistoryStore } from '../../../src/history/store/history-store.js';
import { queueAlerts } from '../../../src/history/store/outbox/outbox-queue.js';
import { WEBHOOK_SECRET, type Receiver } from '../../helpers/alerts/receivers.js';

let serial = 0;
/** `n` budget alerts, each about another person. */
export const alerts = (n: number): AlertCandidate[] =>
  Array.from({ length: n }, () => {
    const i = serial++;
    return {
      type: 'budget.threshold',
      dedupKey: `budget.threshold:u:p${i}@x.example:100:2026-11`,
      data: { user_email: `p${i}@x.example`, resource: 'usd', limit: '250', used: '251.10', threshold: '100' },
      scope: { identities: [`u:p${i}@x.example`] },
    };
  });
export const webhookTo = (r: Receiver): Destination => ({
  ...{ name: 'hook', kind: 'webhook', events: ['*'] },
  ...{ url: new URL(r.url), secret: WEBHOOK_SECRET },
});
export const pct = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))]!;

/** Queues `n` alerts in decisions of 100 (a sync's), as after-sync does. */
export async function queue(store: HistoryStore, n: number, hook: Destination): Promise<void> {
  for (let i = 0; i < n; i += 100) await queueAlerts(store, alerts(Math.min(100, n - i)), [hook]);
}
