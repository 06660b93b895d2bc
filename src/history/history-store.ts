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

/** The prefix of the dataset name rows are staged under while their fetch runs. */
const STAGING = 'staging:';

type Db = Kysely<HistoryTables>;
type Span = Pick<Block, 'dataset' | 'start' | 'end'>;

const rowValues = (dataset: string, at: { start: number; end: number }, item: unknown, seq: number) => ({
  dataset,
  start_day: at.start,
  end_day: at.end,
  seq,
  identity: identityOf(item as Row),
  body: JSON.stringify(item),
});

async function readRows(db: Db, dataset: string, start: number, end: number): Promise<Row[]> {
  const rows = await db
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

/** A block's rows and its listing gone, to be written again. */
async function clear(db: Db, b: Span): Promise<void> {
  for (const table of ['history_rows', 'history_blocks'] as const)
    await db
      .deleteFrom(table)
      .where('dataset', '=', b.dataset)
      .where('start_day', '=', b.start)
      .where('end_day', '=', b.end)
      .execute();
}

async function insertRows(db: Db, dataset: string, at: Span, items: readonly unknown[], seq: number) {
  for (let i = 0; i < items.length; i += CHUNK) {
    const values = items.slice(i, i + CHUNK).map((item, j) => rowValues(dataset, at, item, seq + i + j));
    await db.insertInto('history_rows').values(values).execute();
  }
}

async function insertBlock(db: Db, b: Omit<Block, 'rows'>, rows: number): Promise<void> {
  await db
    .insertInto('history_blocks')
    .values({
      dataset: b.dataset,
      start_day: b.start,
      end_day: b.end,
      grain: b.grain,
      rows,
      fetched_at: b.fetched_at,
      expires_at: b.expires_at,
    })
    .execute();
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
    return readRows(this.db, dataset, start, end);
  }

  /** Writes blocks whole, replacing any stored ones of the same days: all of them or none. */
  async put(blocks: readonly NewBlock[]): Promise<void> {
    if (blocks.length === 0) return;
    await this.db.transaction().execute(async (tx) => {
      for (const b of blocks) {
        await clear(tx, b);
        await insertRows(tx, b.dataset, b, b.items, 0);
        await insertBlock(tx, b, b.items.length);
      }
    });
    this.saw(blocks);
  }

  /**
   * Stages rows of a dataset as they arrive, page by page, under a name no reader asks for: they answer
   * nothing until `commit` makes them blocks. `seq` runs on across the pages of one fetch.
   */
  async stage(dataset: string, rows: ReadonlyArray<{ start: number; end: number; item: unknown }>, seq: number) {
    for (let i = 0; i < rows.length; i += CHUNK) {
      const values = rows.slice(i, i + CHUNK).map((r, j) => rowValues(STAGING + dataset, r, r.item, seq + i + j));
      await this.db.insertInto('history_rows').values(values).execute();
    }
  }

  /** Drops what a fetch of the dataset staged and did not commit (a failed or killed one). */
  async unstage(dataset: string): Promise<void> {
    await this.db
      .deleteFrom('history_rows')
      .where('dataset', '=', STAGING + dataset)
      .execute();
  }

  /**
   * Makes the staged rows of each block the block's rows, in one transaction with the blocks (and those
   * `derive`d from each block's rows, its rollups): all of them or none, as `put` writes them.
   */
  async commit(
    dataset: string,
    blocks: ReadonlyArray<Omit<NewBlock, 'items'> & { rows: number }>,
    derive?: () => { add(rows: Row[]): void; rows(): Array<{ id: string; rows: Row[] }> },
  ): Promise<void> {
    if (blocks.length === 0) return this.unstage(dataset);
    await this.db.transaction().execute(async (tx) => {
      for (const b of blocks) {
        await clear(tx, b);
        await tx
          .updateTable('history_rows')
          .set({ dataset: b.dataset })
          .where('dataset', '=', STAGING + dataset)
          .where('start_day', '=', b.start)
          .where('end_day', '=', b.end)
          .execute();
        await insertBlock(tx, b, b.rows);
        if (!derive) continue;
        // Read back a part at a time: a block of tens of thousands of rows is never in memory whole.
        const sums = derive();
        for (let after = -1; ;) {
          const part = await tx
            .selectFrom('history_rows')
            .select(['seq', 'body'])
            .where('dataset', '=', b.dataset)
            .where('start_day', '=', b.start)
            .where('end_day', '=', b.end)
            .where('seq', '>', after)
            .orderBy('seq')
            .limit(CHUNK)
            .execute();
          if (part.length === 0) break;
          sums.add(JSON.parse(`[${part.map((r) => r.body).join(',')}]`) as Row[]);
          after = Number(part.at(-1)!.seq);
        }
        for (const d of sums.rows()) {
          const at = { ...b, dataset: d.id };
          await clear(tx, at);
          await insertRows(tx, d.id, at, d.rows, 0);
          await insertBlock(tx, at, d.rows.length);
        }
      }
      await tx
        .deleteFrom('history_rows')
        .where('dataset', '=', STAGING + dataset)
        .execute();
    });
    this.saw(blocks);
  }

  private saw(blocks: ReadonlyArray<{ start: number }>): void {
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
