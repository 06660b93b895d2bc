import { randomUUID } from 'node:crypto';
import type { AlertCandidate } from '../../../domain/alerts.js';
import { compareDecimals } from '../../../domain/numbers.js';
import type { AlertFilter } from '../../../config/options-alerts.js';
import type { HistoryStore } from '../history-store.js';
import type { Insertable } from 'kysely';
import type { HistoryTables } from '../store-tables.js';
import { alertOf, type OutboxAlert } from './outbox-rows.js';

export interface QueueOptions {
  /** Epoch ms of the decision (the body's timestamp); now by default. */
  now?: number;
  /** Whether an identity is in one of the teams (or below), for destinations with `teams`; without it, none is. */
  inTeams?: (identity: string, teams: readonly string[]) => boolean;
  /** The organization the alerts are about, added to each body's data as `organization`. */
  organization?: string;
}

const CHUNK = 200;
const below = (excess: string | undefined, minimum: string | undefined) =>
  excess !== undefined && minimum !== undefined && compareDecimals(excess, minimum) < 0;

/**
 * Whether a destination wants an alert: its events, then its filters. An alert below a minimum excess it carries
 * is left out; one about identities must name one the destination lists, or one in its teams. An alert without an
 * excess, or about the organization as a whole, passes those filters.
 */
export function wants(destination: AlertFilter, alert: AlertCandidate, inTeams?: QueueOptions['inTeams']): boolean {
  if (!destination.events.includes('*') && !destination.events.includes(alert.type)) return false;
  if (below(alert.scope.excessUsd, destination.minExcessUsd)) return false;
  if (below(alert.scope.excessCredits, destination.minExcessCredits)) return false;
  const ids = alert.scope.identities ?? [];
  if (ids.length === 0) return true;
  const { identities, teams } = destination;
  if (identities && !ids.some((id) => identities.includes(id))) return false;
  if (teams && !ids.some((id) => inTeams?.(id, teams) ?? false)) return false;
  return true;
}

/** A fresh alert id, as Standard Webhooks writes message ids. */
export const alertId = () => `msg_${randomUUID().replaceAll('-', '')}`;

/**
 * Writes one outbox row per alert and destination that wants it, in one transaction, and answers the rows
 * queued. A dedup key the destination's rows already hold is skipped (the database's unique key decides, so a
 * repeated sync, or two replicas deciding at once, queue it once).
 */
export async function queueAlerts(
  store: HistoryStore,
  candidates: readonly AlertCandidate[],
  destinations: readonly AlertFilter[],
  opts: QueueOptions = {},
): Promise<OutboxAlert[]> {
  const now = opts.now ?? Date.now();
  const timestamp = new Date(now).toISOString();
  const batch = randomUUID();
  const rows: Array<Insertable<HistoryTables['alerts_outbox']>> = [];
  const seen = new Set<string>();
  for (const alert of candidates) {
    const data = opts.organization ? { organization: opts.organization, ...alert.data } : alert.data;
    const payload = JSON.stringify({ type: alert.type, timestamp, data });
    for (const d of destinations) {
      const key = `${d.name}\u0000${alert.dedupKey}`;
      if (seen.has(key) || !wants(d, alert, opts.inTeams)) continue;
      seen.add(key);
      rows.push({
        ...{ id: alertId(), type: alert.type, dedup_key: alert.dedupKey, destination: d.name, batch, payload },
        ...{ state: 'queued', attempts: 0, next_attempt_at: now, last_error: null, created_at: now },
        ...{ delivered_at: null, claimed_by: null, claim_until: null },
      });
    }
  }
  if (rows.length === 0) return [];
  return store.db.transaction().execute(async (tx) => {
    const queued: OutboxAlert[] = [];
    for (let i = 0; i < rows.length; i += CHUNK) {
      const written = await tx
        .insertInto('alerts_outbox')
        .values(rows.slice(i, i + CHUNK))
        .onConflict((oc) => oc.columns(['destination', 'dedup_key']).doNothing())
        .returningAll()
        .execute();
      queued.push(...written.map(alertOf));
    }
    return queued;
  });
}
