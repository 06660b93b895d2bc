import type { McpServer } from '@modelcontextprotocol/server';
import type { HistoryStore } from '../../history/store/history-store.js';
import { recentAlerts, type OutboxAlert } from '../../history/store/outbox/outbox-read.js';
import type { Redactor } from '../../privacy/redact.js';
import type { ProtocolFailure } from '../tool-errors.js';

export const ALERTS_URI = 'alerts://recent';
/** Alerts the resource lists: the newest first. */
export const RECENT_ALERTS = 100;

export interface AlertsResourceDeps {
  /** The store, opened on first use; undefined when it cannot be used (said once on stderr). */
  store: () => Promise<HistoryStore | undefined>;
  redact: Redactor;
  fail: ProtocolFailure;
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/** One outbox row as an assistant reads it: what was said, to whom, and where its delivery stands. */
function shown(a: OutboxAlert) {
  const body = JSON.parse(a.payload) as { timestamp?: string; data?: unknown };
  return {
    id: a.id,
    type: a.type,
    destination: a.destination,
    state: a.state,
    attempts: a.attempts,
    decided_at: iso(a.createdAt),
    ...(a.state === 'queued' ? { next_attempt_at: iso(a.nextAttemptAt) } : {}),
    ...(a.deliveredAt !== null ? { delivered_at: iso(a.deliveredAt) } : {}),
    ...(a.lastError ? { last_error: a.lastError } : {}),
    dedup_key: a.dedupKey,
    data: body.data ?? null,
  };
}

/** alerts://recent: the last 100 alerts of the outbox (issue 35), newest first, each with its delivery state. */
export function registerAlertsResource(server: McpServer, deps: AlertsResourceDeps): void {
  server.registerResource(
    'alerts',
    ALERTS_URI,
    {
      title: 'Recent alerts',
      description: `The last ${RECENT_ALERTS} alerts the syncs decided (anomalies, budget thresholds, inactive seats, failed syncs, stale data), newest first, each per destination with its delivery state: queued, delivered or failed.`,
      mimeType: 'application/json',
    },
    async (uri) => {
      try {
        const store = await deps.store();
        const alerts = store ? (await recentAlerts(store, RECENT_ALERTS)).map(shown) : [];
        const feed = alerts.length
          ? { alerts }
          : {
              alerts,
              note: 'No alert yet: a sync decides them when --alerts-file names destinations (org-analytics-mcp alerts test sends samples).',
            };
        return {
          contents: [{ uri: uri.href, mimeType: 'application/json', text: deps.redact.text(JSON.stringify(feed)) }],
        };
      } catch (error) {
        throw deps.fail(error, 'resource read failed', { uri: uri.href });
      }
    },
  );
}
