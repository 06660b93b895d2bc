import { alertId } from '../history/store/outbox/outbox-queue.js';
import type { OutboxAlert } from '../history/store/outbox/outbox-rows.js';
import { ALERT_TYPES, type AlertType } from '../domain/alerts.js';

/** What each event's data looks like (the README's examples): what `alerts test` sends, as `alert.test`. */
const SAMPLES: Record<Exclude<AlertType, 'alert.test'>, Record<string, unknown>> = {
  'anomaly.detected': {
    anomalies: [
      {
        kind: 'identity_credits',
        service_account_name: 'nightly-refactor',
        date: '2026-11-17',
        value: 52880,
        baseline: 2644,
        ratio: 20,
      },
    ],
  },
  'budget.threshold': {
    user_email: 'ana.souza@northwind.example',
    resource: 'usd',
    limit: '250',
    used: '212.40',
    projected: '329.22',
    threshold: '80',
    month: '2026-11',
  },
  'seats.inactive': {
    week_of: '2026-11-23',
    inactive_days: 30,
    count: 1,
    people: [
      { user_email: 'omar.quispe@northwind.example', last_active_date: '2026-10-19', active_days: 41, credits: 18250 },
    ],
    service_accounts: [],
  },
  'sync.failed': {
    failed_requests: 1,
    not_tried: 0,
    errors: ['dau-count 2026-11-18..2026-11-20: the analytics API answered 500'],
  },
  'data.stale': { stored_through: '2026-11-20', latest_published: '2026-11-23', days_behind: 3 },
};

export const SAMPLE_EVENTS = ALERT_TYPES.filter((t) => t !== 'alert.test');

/**
 * One `alert.test` per event kind for a destination, as an outbox row it is sent as (not written to the outbox):
 * `test_of` names the event, the rest is its example data. `redact` applies --pii pseudonymous.
 */
export function sampleAlerts(
  destination: string,
  organization: string,
  redact: <T>(value: T) => T,
  now = Date.now(),
): Array<OutboxAlert & { testOf: string }> {
  const timestamp = new Date(now).toISOString();
  const batch = alertId();
  return Object.entries(SAMPLES).map(([event, data]) => ({
    ...{ id: alertId(), type: 'alert.test', dedupKey: `alert.test:${event}:${timestamp.slice(0, 10)}`, destination },
    payload: JSON.stringify({ type: 'alert.test', timestamp, data: redact({ test_of: event, organization, ...data }) }),
    ...{ batch, state: 'queued', attempts: 0, nextAttemptAt: now, lastError: null, createdAt: now, deliveredAt: null },
    testOf: event,
  }));
}
