import type { Kysely } from 'kysely';
import type { HistoryTables } from './store-tables.js';
import { isPacked, packRecords, unpackRecords } from '../../util/packed-json.js';
import { kindOf } from './block-ids.js';

/** The rows of stored blocks as SQL: written, read, and read back a part at a time. */

type Db = Kysely<HistoryTables>;
type Row = Record<string, unknown>;
type Span = { dataset: string; start: number; end: number };
type BlockMeta = Span & { grain: string; fetched_at: string; expires_at: number | null };

/** `u:<email lowercased>` or `s:<service account>` of a row; null for rows of the whole organization. */
export function identityOf(row: Row): string | null {
  if (typeof row.user_email === 'string') return `u:${row.user_email.toLowerCase()}`;
  if (typeof row.service_account_name === 'string') return `s:${row.service_account_name}`;
  const info = row.group_by_values && (row.group_by_values as Row).user_info;
  if (info && typeof info === 'object') return identityOf(info as Row);
  return null;
}

/** Rows per INSERT: within SQLite's 32,766 and PostgreSQL's 65,535 bound parameters at 6 columns a row. */
export const CHUNK = 2000;

export const rowValues = (dataset: string, at: { start: number; end: number }, item: unknown, seq: number) => ({
  dataset,
  start_day: at.start,
  end_day: at.end,
  seq,
  identity: identityOf(item as Row),
  body: JSON.stringify(item),
});

export async function readRows(db: Db, dataset: string, start: number, end: number): Promise<Row[]> {
  const rows = await db
    .selectFrom('history_rows')
    .select('body')
    .where('dataset', '=', dataset)
    .where('start_day', '=', start)
    .where('end_day', '=', end)
    .orderBy('seq')
    .execute();
  // One parse of the whole block: many times faster than one per row at tens of thousands of rows.
  return unpackRecords(rows.map((r) => r.body));
}

/** A block's rows and its listing gone, to be written again. */
export async function clear(db: Db, b: Span): Promise<void> {
  for (const table of ['history_rows', 'history_blocks'] as const)
    await db
      .deleteFrom(table)
      .where('dataset', '=', b.dataset)
      .where('start_day', '=', b.start)
      .where('end_day', '=', b.end)
      .execute();
}

/**
 * A stored block's records, BATCH to a row, packed (util/packed-json.ts): a block of 50,000 people is then a hundred
 * rows a fifth of its JSON size, several times faster to read. Rows staged (`staging:…`) are one record each, in
 * plain JSON, with their identity beside them, so that a pass over a share of the identities skips the others
 * unparsed; so are the blocks of stores written before the batches, which are read as they are.
 */
export const BATCH = 500;
const batched = (dataset: string) => kindOf(dataset) !== 'staging';

/** The stored row of a batch of a block's records, packed, at `seq`. */
const packedRow = (at: Span, records: readonly Row[], seq: number) => ({
  ...rowValues(at.dataset, at, {}, seq),
  body: packRecords(records),
});

/** A block's records written as its rows, BATCH to a row, from `seq`. */
export async function insertRows(db: Db, dataset: string, at: Span, items: readonly unknown[], seq: number) {
  const values: Array<ReturnType<typeof rowValues>> = [];
  for (let i = 0; i < items.length; i += BATCH)
    values.push(packedRow({ ...at, dataset }, items.slice(i, i + BATCH) as Row[], seq + i / BATCH));
  await insertValues(db, values);
}

/** Stored rows inserted CHUNK at a time. */
export async function insertValues(db: Db, values: ReadonlyArray<ReturnType<typeof rowValues>>): Promise<void> {
  for (let i = 0; i < values.length; i += CHUNK)
    await db
      .insertInto('history_rows')
      .values(values.slice(i, i + CHUNK))
      .execute();
}

/** The next `limit` stored rows of a block after `after`, in order. */
const rowsAfter = (db: Db, b: Span, after: number, limit: number) =>
  db
    .selectFrom('history_rows')
    .select(['seq', 'identity', 'body'])
    .where('dataset', '=', b.dataset)
    .where('start_day', '=', b.start)
    .where('end_day', '=', b.end)
    .where('seq', '>', after)
    .orderBy('seq')
    .limit(limit)
    .execute();

export async function insertBlock(db: Db, b: BlockMeta, rows: number): Promise<void> {
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

/**
 * Where a record read by `readRecords` stood: its block's place in the blocks read, then its own in the block. It
 * rides on the record under a symbol, which spreads copy and JSON leaves out: a sum keeps its first record's.
 */
export const POSITION = Symbol('position');
export type Positioned = Row & { [POSITION]?: number };

/**
 * A block's records a part at a time, in order, each with its POSITION (`offset` plus its place in the block),
 * only those whose identity `keep` wants: a staged row of one record is skipped unparsed. Returns the offset the
 * next block's records start at.
 */
export async function readRecords(
  db: Db,
  b: Span,
  each: (records: Row[]) => void,
  options: { keep?: (identity: string | null) => boolean; offset?: number; limit?: number } = {},
): Promise<number> {
  const { keep, offset = 0 } = options;
  // A block's rows are all batches or all single records; the first row read says which. Spans written before
  // the packing hold batches of plain records, joined by commas.
  let batches = batched(b.dataset);
  let next = offset;
  for (let after = -1; ;) {
    const part = await rowsAfter(db, b, after, options.limit ?? (batches ? Math.ceil(CHUNK / BATCH) : CHUNK));
    if (part.length === 0) return next;
    if (after === -1) batches = isPacked(part[0]!.body) || kindOf(b.dataset) === 'span';
    after = Number(part.at(-1)!.seq);
    let records: Positioned[];
    if (batches) {
      records = part.flatMap((r) =>
        (unpackRecords([r.body]) as Positioned[]).map((record, i) => {
          record[POSITION] = offset + Number(r.seq) * BATCH + i;
          return record;
        }),
      );
    } else {
      const wanted = keep ? part.filter((r) => r.identity === null || keep(r.identity)) : part;
      records = unpackRecords(wanted.map((r) => r.body)) as Positioned[];
      for (const [i, record] of records.entries()) record[POSITION] = offset + Number(wanted[i]!.seq);
    }
    next = offset + (batches ? (after + 1) * BATCH : after + 1);
    each(keep ? records.filter((r) => keep(identityOf(r))) : records);
  }
}

/** Records written as single rows at their POSITION: a block's rows in the order of their first records. */
export async function insertPositioned(db: Db, at: Span, records: readonly Positioned[]): Promise<void> {
  await insertValues(
    db,
    records.map((r) => rowValues(at.dataset, at, r, r[POSITION]!)),
  );
}

/**
 * The records staged as single rows at `from` (in order of their POSITION) written as the batched rows of `to`,
 * packed a batch at a time.
 */
export async function batchStaged(db: Db, from: Span, to: Span): Promise<void> {
  for (let after = -1, seq = 0; ;) {
    const part = await rowsAfter(db, from, after, CHUNK);
    if (part.length === 0) return;
    after = Number(part.at(-1)!.seq);
    const values: Array<ReturnType<typeof rowValues>> = [];
    for (let i = 0; i < part.length; i += BATCH)
      values.push(packedRow(to, unpackRecords(part.slice(i, i + BATCH).map((r) => r.body)), seq++));
    await db.insertInto('history_rows').values(values).execute();
  }
}
