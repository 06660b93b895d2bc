import type { Selectable } from 'kysely';
import type { DeliveryState } from '../../../domain/alerts.js';
import type { HistoryTables } from '../store-tables.js';

/** One alert for one destination, as the outbox holds it. Times are epoch ms. */
export interface OutboxAlert {
  /** The alert's own id, its `webhook-id`: the same on every retry. */
  id: string;
  type: string;
  dedupKey: string;
  destination: string;
  /** The decision it came from (one sync): Slack and email send one message per batch. */
  batch: string;
  /** The webhook body, `{type, timestamp, data}`, as JSON text. */
  payload: string;
  state: DeliveryState;
  attempts: number;
  nextAttemptAt: number;
  lastError: string | null;
  createdAt: number;
  deliveredAt: number | null;
}

/** PostgreSQL returns bigint columns as text. */
const num = (v: unknown) => (v === null || v === undefined ? null : Number(v));

export function alertOf(row: Selectable<HistoryTables['alerts_outbox']>): OutboxAlert {
  return {
    id: row.id,
    type: row.type,
    dedupKey: row.dedup_key,
    destination: row.destination,
    batch: row.batch,
    payload: row.payload,
    state: row.state as DeliveryState,
    attempts: Number(row.attempts),
    nextAttemptAt: Number(row.next_attempt_at),
    lastError: row.last_error,
    createdAt: Number(row.created_at),
    deliveredAt: num(row.delivered_at),
  };
}
