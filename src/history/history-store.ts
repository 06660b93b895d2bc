import type { Kysely } from 'kysely';
import type { HistoryTables } from './store-tables.js';
import type { Grain } from './datasets.js';

/** A stored block: a day or a calendar month of one dataset. */
export interface Block {
  dataset: string;
  start: number;
  end: number;
  grain: Grain;
  rows: number;
  fetched_at: string;
  /** Epoch ms after which it is fetched again; null: final. */
  expires_at: number | null;
}

/** A block to write, with its rows as the upstream sent them. */
export interface NewBlock extends Omit<Block, 'rows'> {
  items: unknown[];
}

type Row = Record<string, unknown>;

/** Rows per INSERT: within SQLite's 32,766 and PostgreSQL's 65,535 bound parameters at 6 columns a row. */
const CHUNK = 2000;

function identityOf(row: Row): string | null {
  if (typeof row.user_email === 'string') return `u:${row.user_email.toLowerCase()}`;
  if (typeof row.service_account_name === 'string') return `s:${row.service_account_name}`;
  const info = row.group_by_values && (row.group_by_values as Row).user_info;
  if (info && typeof info === 'object') return identityOf(info as Row);
  return null;
}

/** A lock the database holds for a session of its own: released when released, or when that session ends. */
export interface SessionLock {
  release(): Promise<void>;
}

/** PostgreSQL returns bigint columns as text. */
const num = (v: unknown) => (v === null || v === undefined ? null : Number(v));

/**
 * The history store: blocks of days and months, and their rows, on SQLite or PostgreSQL through one
 * Kysely code path. A block and its rows are written in one transaction, so a block that is listed is whole.
 */
export class HistoryStore {
  constructor(
    readonly db: Kysely<HistoryTables>,
    /** 'sqlite' or 'postgres'. */
    readonly engine: 'sqlite' | 'postgres',
    /** Where it is, for messages: a file path, or the database without its password. */
    readonly where: string,
    private readonly onClose: () => Promise<void>,
    /**
     * PostgreSQL: takes the named lock on a connection of its own, or null when another session holds it. The
     * server frees it when the holder's session ends, so a killed holder, on any host, leaves it free at once.
     */
    readonly sessionLock?: (name: string) => Promise<SessionLock | null>,
  ) {}

  /** The blocks of a dataset that overlap [start, end], oldest first; expired ones left out unless asked. */
  async blocks(dataset: string, start: number, end: number, now?: number): Promise<Block[]> {
    const rows = await this.db
      .selectFrom('history_blocks')
      .selectAll()
      .where('dataset', '=', dataset)
      .where('start_day', '<=', end)
      .where('end_day', '>=', start)
      .orderBy('start_day')
      .execute();
    return rows
      .map((r) => ({
        dataset: r.dataset,
        start: Number(r.start_day),
        end: Number(r.end_day),
        grain: r.grain as Grain,
        rows: Number(r.rows),
        fetched_at: r.fetched_at,
        expires_at: num(r.expires_at),
      }))
      .filter((b) => now === undefined || b.expires_at === null || b.expires_at > now);
  }

  /** The rows of one block, in the order the upstream sent them. */
  async rows(dataset: string, start: number, end: number): Promise<Row[]> {
    const rows = await this.db
      .selectFrom('history_rows')
      .select('body')
      .where('dataset', '=', dataset)
      .where('start_day', '=', start)
      .where('end_day', '=', end)
      .orderBy('seq')
      .execute();
    // One parse of the whole block: many times faster than one per row at tens of thousands of rows.
    return JSON.parse(`[${rows.map((r) => r.body).join(',')}]`) as Row[];
  }

  /** Writes blocks whole, replacing any stored ones of the same days: all of them or none. */
  async put(blocks: readonly NewBlock[]): Promise<void> {
    if (blocks.length === 0) return;
    await this.db.transaction().execute(async (tx) => {
      for (const b of blocks) {
        for (const table of ['history_rows', 'history_blocks'] as const)
          await tx
            .deleteFrom(table)
            .where('dataset', '=', b.dataset)
            .where('start_day', '=', b.start)
            .where('end_day', '=', b.end)
            .execute();
        for (let i = 0; i < b.items.length; i += CHUNK) {
          const values = b.items.slice(i, i + CHUNK).map((item, j) => ({
            dataset: b.dataset,
            start_day: b.start,
            end_day: b.end,
            seq: i + j,
            identity: identityOf(item as Row),
            body: JSON.stringify(item),
          }));
          await tx.insertInto('history_rows').values(values).execute();
        }
        await tx
          .insertInto('history_blocks')
          .values({
            dataset: b.dataset,
            start_day: b.start,
            end_day: b.end,
            grain: b.grain,
            rows: b.items.length,
            fetched_at: b.fetched_at,
            expires_at: b.expires_at,
          })
          .execute();
      }
    });
    const first = Math.min(...blocks.map((b) => b.start));
    if (this.earliest === undefined || first < this.earliest) this.earliest = first;
  }

  /** The earliest day any block holds, read once from the store and kept up to date by `put`. */
  earliest: number | undefined;

  async readEarliest(): Promise<number | undefined> {
    const row = await this.db
      .selectFrom('history_blocks')
      .select((eb) => eb.fn.min<number>('start_day').as('first'))
      .executeTakeFirst();
    const first = row?.first === null || row?.first === undefined ? undefined : Number(row.first);
    if (first !== undefined && (this.earliest === undefined || first < this.earliest)) this.earliest = first;
    return this.earliest;
  }

  async close(): Promise<void> {
    await this.onClose();
  }
}
