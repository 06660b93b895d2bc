import { sql } from 'kysely';
import type { HistoryStore } from '../history-store.js';
import { alertOf, type OutboxAlert } from './outbox-rows.js';

export interface ClaimOptions {
  /** Who claims: `<host>/<pid>/<random>` (see `releaseDeadClaims`). */
  holder: string;
  now: number;
  /** How long the claim holds: past it, another process may deliver the rows (a killed holder's). */
  leaseMs: number;
  limit: number;
  /** Every queued row whatever its backoff (`alerts deliver`); else those due. */
  all?: boolean;
  /** Only these destinations' rows (those this process can deliver to). */
  destinations?: readonly string[];
  /** Only these rows (at most a few hundred). */
  ids?: readonly string[];
}

/**
 * Claims queued rows that are due and free (never claimed, or their lease is over), oldest first. One statement:
 * PostgreSQL skips the rows another replica is claiming (FOR UPDATE SKIP LOCKED), SQLite writes one at a time; so
 * each row goes to one process.
 */
export async function claimDue(store: HistoryStore, opts: ClaimOptions): Promise<OutboxAlert[]> {
  const { holder, now, leaseMs, limit } = opts;
  if (opts.destinations?.length === 0 || opts.ids?.length === 0) return [];
  return store.db.transaction().execute(async (tx) => {
    const due = tx
      .selectFrom('alerts_outbox')
      .select('id')
      .where('state', '=', 'queued')
      .$if(!opts.all, (q) => q.where('next_attempt_at', '<=', now))
      .$if(opts.destinations !== undefined, (q) => q.where('destination', 'in', opts.destinations!))
      .$if(opts.ids !== undefined, (q) => q.where('id', 'in', opts.ids!))
      .where((eb) => eb.or([eb('claim_until', 'is', null), eb('claim_until', '<=', now)]))
      .orderBy('next_attempt_at')
      .orderBy('created_at')
      .limit(limit)
      .$if(store.engine === 'postgres', (q) => q.forUpdate().skipLocked());
    const rows = await tx
      .updateTable('alerts_outbox')
      .set({ claimed_by: holder, claim_until: now + leaseMs })
      .where('id', 'in', due)
      .returningAll()
      .execute();
    return rows.map(alertOf).sort((a, b) => a.nextAttemptAt - b.nextAttemptAt || a.createdAt - b.createdAt);
  });
}

/**
 * Frees the claims of processes of this host that are gone (killed mid-delivery): their rows are delivered on the
 * next start without waiting for the lease. `alive` tells whether a pid runs.
 */
export async function releaseDeadClaims(
  store: HistoryStore,
  host: string,
  now: number,
  alive: (pid: number) => boolean,
): Promise<number> {
  const held = await store.db
    .selectFrom('alerts_outbox')
    .select('claimed_by')
    .distinct()
    .where('state', '=', 'queued')
    .where('claim_until', '>', now)
    .where('claimed_by', 'like', `${host}/%`)
    .execute();
  const dead = held
    .map((r) => r.claimed_by!)
    .filter((holder) => {
      const pid = Number(holder.slice(host.length + 1).split('/')[0]);
      return Number.isInteger(pid) && pid > 0 && !alive(pid);
    });
  if (dead.length === 0) return 0;
  const freed = await store.db
    .updateTable('alerts_outbox')
    .set({ claimed_by: null, claim_until: null })
    .where('state', '=', 'queued')
    .where('claimed_by', 'in', dead)
    .executeTakeFirst();
  return Number(freed.numUpdatedRows);
}

/** How a delivery ended, for the rows it carried. */
export type Settlement =
  { outcome: 'delivered' } | { outcome: 'retry'; at: number; error: string } | { outcome: 'failed'; error: string };

/** Records a delivery's outcome for its rows and frees their claim. */
export async function settle(store: HistoryStore, ids: readonly string[], how: Settlement, now: number): Promise<void> {
  if (ids.length === 0) return;
  const free = { claimed_by: null, claim_until: null, attempts: sql<number>`attempts + 1` };
  const change =
    how.outcome === 'delivered'
      ? { ...free, state: 'delivered', delivered_at: now }
      : how.outcome === 'retry'
        ? { ...free, next_attempt_at: how.at, last_error: how.error }
        : { ...free, state: 'failed', last_error: how.error };
  await store.db
    .updateTable('alerts_outbox')
    .set(change)
    .where('id', 'in', [...ids])
    .where('state', '=', 'queued')
    .execute();
}

/** The ids of every queued row of these destinations, oldest first (what `alerts deliver` tries). */
export async function queuedIds(store: HistoryStore, destinations: readonly string[]): Promise<string[]> {
  if (destinations.length === 0) return [];
  const rows = await store.db
    .selectFrom('alerts_outbox')
    .select('id')
    .where('state', '=', 'queued')
    .where('destination', 'in', destinations)
    .orderBy('created_at')
    .execute();
  return rows.map((r) => r.id);
}

/** When the next queued row of these destinations is due (epoch ms), or undefined when none is queued. */
export async function nextDue(store: HistoryStore, destinations: readonly string[]): Promise<number | undefined> {
  if (destinations.length === 0) return undefined;
  const row = await store.db
    .selectFrom('alerts_outbox')
    .select(({ fn }) => fn.min('next_attempt_at').as('next'))
    .where('state', '=', 'queued')
    .where('destination', 'in', destinations)
    .executeTakeFirst();
  return row?.next === null || row?.next === undefined ? undefined : Number(row.next);
}

/**
 * Drops settled rows (delivered or failed) decided before `before`: the outbox keeps what dedup keys need (a day,
 * a week, a month) and alerts://recent shows, not every alert ever sent.
 */
export async function pruneOutbox(store: HistoryStore, before: number): Promise<number> {
  const dropped = await store.db
    .deleteFrom('alerts_outbox')
    .where('state', 'in', ['delivered', 'failed'])
    .where('created_at', '<', before)
    .executeTakeFirst();
  return Number(dropped.numDeletedRows);
}
