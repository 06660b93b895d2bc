import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import type { HistoryStore, SessionLock } from '../store/history-store.js';

/** A holder that has not beaten for this long is gone, wherever it ran. */
const STALE_MS = 30_000;
const BEAT_MS = 5_000;

export interface LockHolder {
  host: string;
  pid: number;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * One syncer per store, a lock the store itself holds: a row with the holder's host, pid and heartbeat.
 * A holder on this host whose process is gone is taken over at once; one elsewhere once its heartbeat is stale.
 * On PostgreSQL the holder's own session holds it too: once that session ends, the holder is gone at once.
 */
export class SyncLock {
  private timer: NodeJS.Timeout | undefined;
  private session: SessionLock | undefined;
  constructor(
    private readonly store: HistoryStore,
    private readonly now: () => number = Date.now,
    /** Who holds it: one syncer may run again as the same holder (the sync command's thread, started anew). */
    private readonly id: string = randomUUID(),
  ) {}

  /**
   * Takes the lock, or says who holds it. Each step is one statement, atomic on its own (no transaction that
   * reads and then writes: on SQLite in WAL mode two of those that start together fail with SQLITE_BUSY):
   * insert if there is no row; replace a gone holder only if the row is still the one read (compare and swap).
   */
  async acquire(): Promise<{ ok: true } | { ok: false; holder: LockHolder }> {
    // PostgreSQL holds it for this syncer's session too: once that session ends, the row below is stale at once.
    const session = await this.store.sessionLock?.('sync');
    if (session === null) {
      const read = () =>
        this.store.db.selectFrom('history_lock').selectAll().where('name', '=', 'sync').executeTakeFirst();
      // The holder writes its row just after it takes the session lock: a moment later it is there to name.
      let row = await read();
      for (let i = 0; i < 20 && !row; i++) row = await new Promise((r) => setTimeout(r, 25)).then(read);
      return { ok: false, holder: { host: row?.host ?? '?', pid: Number(row?.pid ?? 0) } };
    }
    this.session = session;
    const me = { name: 'sync', holder: this.id, host: hostname(), pid: process.pid, beat_at: this.now() };
    const db = this.store.db;
    const read = () => db.selectFrom('history_lock').selectAll().where('name', '=', 'sync').executeTakeFirst();
    await db
      .insertInto('history_lock')
      .values(me)
      .onConflict((oc) => oc.column('name').doNothing())
      .execute();
    let row = await read();
    if (row && row.holder !== this.id) {
      const gone =
        session !== undefined ||
        (row.host === me.host && !alive(Number(row.pid))) ||
        this.now() - Number(row.beat_at) > STALE_MS;
      if (gone) {
        await db
          .updateTable('history_lock')
          .set(me)
          .where('name', '=', 'sync')
          .where('holder', '=', row.holder)
          .where('beat_at', '=', Number(row.beat_at))
          .execute();
        row = await read();
      }
    }
    if (row?.holder !== this.id) {
      await this.session?.release();
      return { ok: false, holder: row ? { host: row.host, pid: Number(row.pid) } : { host: '?', pid: 0 } };
    }
    this.timer = setInterval(() => void this.beat(), BEAT_MS);
    this.timer.unref();
    return { ok: true };
  }

  private async beat(): Promise<void> {
    await this.store.db
      .updateTable('history_lock')
      .set({ beat_at: this.now() })
      .where('name', '=', 'sync')
      .where('holder', '=', this.id)
      .execute()
      .catch(() => {});
  }

  async release(): Promise<void> {
    clearInterval(this.timer);
    await this.store.db
      .deleteFrom('history_lock')
      .where('name', '=', 'sync')
      .where('holder', '=', this.id)
      .execute()
      .catch(() => {});
    await this.session?.release();
    this.session = undefined;
  }
}
