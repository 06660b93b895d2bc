import type { Kysely } from 'kysely';
import type { HistoryTables } from './store-tables.js';
import type { Grain } from './datasets.js';
import { blockSums, numbered } from './derived/block-sums.js';
import { rollupsOf } from './derived/cost-rollups.js';
import { DIGESTED, storeDigest } from './derived/digests.js';
import { digestBody, digestShare, type DigestShare } from './derived/digest-body.js';
import { digestSums } from './derived/identity-sums.js';
import { PeopleIndex } from './derived/people-index.js';
import { passesFor, shareOf } from './derived/passes.js';
import { dropSpans } from './derived/spans.js';
import { digestId, stagingId } from './block-ids.js';
import type { DirectoryRow, DirectorySnapshot } from '../../directory/directory-row.js';
import { recordDirectory, type RecordedChange } from './directory/memberships.js';
import { directorySince, membershipRows } from './directory/membership-rows.js';
import {
  batchStaged,
  clear,
  insertBlock,
  insertRows,
  insertValues,
  readRecords,
  readRows,
  rowValues,
} from './store-rows.js';

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
type Db = Kysely<HistoryTables>;

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

  /**
   * The blocks of a dataset that overlap [start, end], oldest first, and the shorter first of those starting on one
   * day (a run and the longer runs over it): one order on SQLite and PostgreSQL alike. Expired ones left out unless asked.
   */
  async blocks(dataset: string, start: number, end: number, now?: number): Promise<Block[]> {
    const rows = await this.db
      .selectFrom('history_blocks')
      .selectAll()
      .where('dataset', '=', dataset)
      .where('start_day', '<=', end)
      .where('end_day', '>=', start)
      .orderBy('start_day')
      .orderBy('end_day')
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
    const digests = blocks.map((b) => {
      const sums = digestSums(b.dataset);
      sums?.add(b.items as Row[]);
      return sums;
    });
    let settle = () => {};
    await this.db.transaction().execute(async (tx) => {
      const numbered = await this.people.number(tx, digests);
      settle = numbered.settle;
      for (const [i, b] of blocks.entries()) {
        await clear(tx, b);
        await dropSpans(tx, b.dataset, b.start, b.end);
        await insertRows(tx, b.dataset, b, b.items, 0);
        await insertBlock(tx, b, b.items.length);
        const digest = digests[i];
        if (digest) await storeDigest(tx, b, digestBody([digestShare(digest, numbered.ids)]));
      }
    });
    settle();
    this.saw(blocks);
    this.writes++;
  }

  /**
   * Stages rows of a dataset as they arrive, page by page, under a name no reader asks for: they answer
   * nothing until `commit` makes them blocks. `seq` runs on across the pages of one fetch.
   */
  async stage(dataset: string, rows: ReadonlyArray<{ start: number; end: number; item: unknown }>, seq: number) {
    await insertValues(
      this.db,
      rows.map((r, i) => rowValues(stagingId(dataset), r, r.item, seq + i)),
    );
  }

  /** Drops what a fetch of the dataset staged and did not commit (a failed or killed one), its rollups' too. */
  async unstage(dataset: string, db: Db = this.db): Promise<void> {
    const staged = [dataset, ...rollupsOf(dataset).map((r) => r.id)].map(stagingId);
    await db.deleteFrom('history_rows').where('dataset', 'in', staged).execute();
  }

  /**
   * Makes the staged rows of each block the block's rows (packed), in one transaction with the blocks, their digests and
   * rollups (staged first, a block at a time): all of them or none, as `put` writes them.
   */
  async commit(dataset: string, blocks: ReadonlyArray<Omit<NewBlock, 'items'> & { rows: number }>): Promise<void> {
    if (blocks.length === 0) return this.unstage(dataset);
    const derived: Array<Awaited<ReturnType<typeof blockSums>>> = [];
    for (const b of blocks) derived.push(await blockSums(this.db, this.people, b));
    // Staged rows are one record each; a block's are packed batches of them, in the same order.
    const rename = (tx: Db, from: string, to: string, b: { start: number; end: number }) =>
      batchStaged(tx, { ...b, dataset: stagingId(from) }, { ...b, dataset: to });
    await this.db.transaction().execute(async (tx) => {
      for (const [i, b] of blocks.entries()) {
        await clear(tx, b);
        await dropSpans(tx, b.dataset, b.start, b.end);
        await rename(tx, dataset, b.dataset, b);
        await insertBlock(tx, b, b.rows);
        const { digest, rollups } = derived[i]!;
        if (digest) await storeDigest(tx, b, digest);
        for (const [id, rows] of rollups) {
          const at = { ...b, dataset: id };
          await clear(tx, at);
          await dropSpans(tx, id, b.start, b.end);
          await rename(tx, id, id, b);
          await insertBlock(tx, at, rows);
        }
      }
      await this.unstage(dataset, tx);
    });
    this.saw(blocks);
    this.writes++;
  }

  /**
   * Writes the digests a store filled before them lacks, each from its block's rows, a block at a time; a block
   * replaced meanwhile (its own digest written with it) is passed over. Returns how many it wrote.
   */
  async fillDigests(signal?: AbortSignal): Promise<number> {
    let written = 0;
    for (const dataset of DIGESTED) {
      const have = new Set((await this.blocks(digestId(dataset), 0, 1e7)).map((b) => b.start * 1e7 + b.end));
      for (const b of await this.blocks(dataset, 0, 1e7)) {
        if (signal?.aborted) return written;
        if (have.has(b.start * 1e7 + b.end)) continue;
        const shares: DigestShare[] = [];
        const passes = passesFor(b.rows);
        for (let pass = 0; pass < passes; pass++) {
          const sums = digestSums(dataset)!;
          const keep = passes > 1 ? shareOf(pass, passes) : undefined;
          await readRecords(this.db, b, sums.add, { keep });
          shares.push(digestShare(sums, await numbered(this.db, this.people, sums)));
        }
        await this.db.transaction().execute(async (tx) => {
          const same = await tx
            .selectFrom('history_blocks')
            .select('fetched_at')
            .where('dataset', '=', dataset)
            .where('start_day', '=', b.start)
            .where('end_day', '=', b.end)
            .where('fetched_at', '=', b.fetched_at)
            .executeTakeFirst();
          if (!same) return;
          await storeDigest(tx, b, digestBody(shares));
          written++;
        });
        this.writes++;
      }
    }
    return written;
  }

  /** Blocks written by this process so far: what readers keep of the store is good until it changes. */
  writes = 0;

  /** The store's numbering of identities, for digests. */
  readonly people = new PeopleIndex();

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

  /** Keeps a version of the organization's directory, dated day by day (directory/memberships.ts). */
  recordDirectory(snapshot: DirectorySnapshot, today: number): Promise<RecordedChange> {
    return recordDirectory(this.db, snapshot, today);
  }

  /** The directory's rows that hold on some day of [start, end], with the days they hold between. */
  membershipRows(start: number, end: number): Promise<DirectoryRow[]> {
    return membershipRows(this.db, start, end);
  }

  /** Whether a directory was recorded, and from which day it holds (null: since always). */
  directorySince() {
    return directorySince(this.db);
  }

  async close(): Promise<void> {
    await this.onClose();
  }
}
