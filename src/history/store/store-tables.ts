import type { ColumnType } from 'kysely';

/**
 * The history store's tables, the same on SQLite and PostgreSQL. Days are UTC day numbers (days since
 * 1970-01-01), as everywhere else in the code; rows are the upstream's own records as JSON text, so
 * decimals stay strings and big counts stay as the upstream wrote them.
 */
export interface HistoryTables {
  /** The schema version and other facts about the store itself. */
  history_meta: { key: string; value: string };
  /**
   * One stored block of one dataset: a day or a calendar month, complete. A block exists only once every
   * page of it is in, written in the same transaction as its rows.
   */
  history_blocks: {
    /**
     * Whose block it is. One column, six kinds of id, made and told apart in block-ids.ts only: a dataset
     * the sync fetches (`cost-by-day`), a cost rollup (`cost-by-day-by-user`), spans (`span:…`), digests
     * (`digest:…`), range blocks (`range:…`), and rows staged before their transaction (`staging:…`, in
     * history_rows only).
     */
    dataset: string;
    start_day: number;
    end_day: number;
    /** 'day' or 'month'. */
    grain: string;
    rows: number;
    /** ISO 8601: when the upstream answered. */
    fetched_at: string;
    /** Epoch ms after which the block is fetched again (a day that may still be corrected); null: never. */
    expires_at: ColumnType<number | null, number | null, number | null>;
  };
  history_rows: {
    /** The block's id (see history_blocks.dataset), or a `staging:…` id: rows no block lists yet. */
    dataset: string;
    start_day: number;
    end_day: number;
    seq: number;
    /** `u:<email lowercased>` or `s:<service account>`; null for rows of the whole organization. */
    identity: string | null;
    body: string;
  };
  /** Identities numbered once per store (`u:<email lowercased>` or `s:<name>`), with the name as first written. */
  history_people: { id: ColumnType<number, number | undefined, never>; identity: string; name: string };
  /**
   * The organization's directory, day by day: one identity in one team (`/`-joined path, '' for none) from
   * `from_day` to `to_day` inclusive (null: since always / still). `dated`: the source gave the dates (an HR export
   * with effective dates); otherwise the store dated the change on the day it first saw it.
   */
  directory_memberships: {
    id: ColumnType<number, number | undefined, never>;
    identity: string;
    team: string;
    is_primary: number;
    /** The attributes as JSON text, keys sorted. */
    attributes: string;
    from_day: number | null;
    to_day: number | null;
    dated: number;
    recorded_at: string;
  };
  /**
   * Issue 35's outbox: one alert for one destination, written in the transaction that decides it and delivered
   * from here (see outbox/). Times are epoch ms. `id` is the alert's `webhook-id`, the same on every retry.
   */
  alerts_outbox: {
    id: string;
    type: string;
    /** `event:identity-or-scope:day-or-month`, unique per destination: an alert decided twice is queued once. */
    dedup_key: string;
    destination: string;
    /** The decision (one sync's queueAlerts) it came from: Slack and email send one message per batch. */
    batch: string;
    /** The webhook body, `{type, timestamp, data}`, as JSON text. */
    payload: string;
    /** 'queued', 'delivered' or 'failed'. */
    state: string;
    attempts: number;
    next_attempt_at: number;
    /** The last failure: a status and the first 200 characters of the answer, or what went wrong. */
    last_error: string | null;
    created_at: ColumnType<number, number, never>;
    delivered_at: number | null;
    /** The delivering process's lease: no other claims the row before `claim_until`. */
    claimed_by: string | null;
    claim_until: number | null;
  };
  /** One row per store: who syncs now (a syncer takes it over when the holder is gone). */
  history_lock: { name: string; holder: string; host: string; pid: number; beat_at: number };
}
