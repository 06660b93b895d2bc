import type { HistoryStore } from '../history-store.js';
import { alertOf, type OutboxAlert } from './outbox-rows.js';

/** The last alerts queued, newest first, with their delivery states. */
export async function recentAlerts(store: HistoryStore, limit = 100): Promise<OutboxAlert[]> {
  const rows = await store.db
    .selectFrom('alerts_outbox')
    .selectAll()
    .orderBy('created_at', 'desc')
    .orderBy('id')
    .limit(limit)
    .execute();
  return rows.map(alertOf);
}

/** One destination's part of the outbox. */
export interface DestinationStatus {
  destination: string;
  queued: number;
  delivered: number;
  failed: number;
  /** Epoch ms: the oldest queued alert's decision, and its next attempt; null when none is queued. */
  oldestQueuedAt: number | null;
  nextAttemptAt: number | null;
}

/** The outbox by destination, by name. */
export async function outboxStatus(store: HistoryStore): Promise<DestinationStatus[]> {
  const rows = await store.db
    .selectFrom('alerts_outbox')
    .select(({ fn }) => [
      'destination',
      'state',
      fn.countAll<string>().as('n'),
      fn.min('created_at').as('oldest'),
      fn.min('next_attempt_at').as('next'),
    ])
    .groupBy(['destination', 'state'])
    .execute();
  const byName = new Map<string, DestinationStatus>();
  for (const r of rows) {
    const s = byName.get(r.destination) ?? {
      destination: r.destination,
      ...{ queued: 0, delivered: 0, failed: 0, oldestQueuedAt: null, nextAttemptAt: null },
    };
    const state = r.state as 'queued' | 'delivered' | 'failed';
    s[state] = Number(r.n);
    if (state === 'queued') {
      s.oldestQueuedAt = Number(r.oldest);
      s.nextAttemptAt = Number(r.next);
    }
    byName.set(r.destination, s);
  }
  return [...byName.values()].sort((a, b) => a.destination.localeCompare(b.destination));
}

export type { OutboxAlert };
