import type { Kysely } from 'kysely';
import type { DayRange } from '../../domain/dates.js';
import { mergeCostPoints, type CostPoint } from '../../upstream/endpoints/cost-analytics.js';
import { mergeCreditUsage } from '../../upstream/endpoints/credit-usage-by-user.js';
import { mergeUserActivity } from '../../upstream/endpoints/user-activity.js';
import { formatDay } from '../../util/utc-date.js';
import { datasetById, type Dataset } from '../datasets.js';
import { clear, insertBlock, insertRows, readRows } from '../store-rows.js';
import type { HistoryTables } from '../store-tables.js';
import { ROLLUPS, rollupDataset } from './cost-rollups.js';

/**
 * Spans: stored days summed per identity over aligned runs of 4 to 128 days (a span of 2^k days starts on a day
 * number divisible by 2^k), built from the stored days by `buildSpans` after a sync. Sums over disjoint days add
 * up exactly and the merges keep rows in order of first appearance, so a range read as a few spans and days is
 * the same answer as its days read one by one, from a few blocks instead of up to 90 of them.
 */

type Row = Record<string, unknown>;
type Db = Kysely<HistoryTables>;

interface SpanKind {
  id: string;
  /** The day dataset (or cost rollup) it sums. */
  from: Dataset;
  merge(parts: Row[][], span: DayRange): Row[];
}

const withoutDate = (rows: Row[]) =>
  rows.map((row) => {
    const { date: _, ...rest } = row;
    return rest;
  });

const KINDS: readonly SpanKind[] = [
  {
    id: 'span:user-activity',
    from: datasetById('user-activity'),
    merge: (parts) => mergeUserActivity(parts as never) as unknown as Row[],
  },
  {
    // Per identity and model, without the day: the rows of a credit question that is not by date.
    id: 'span:credits-by-date-model',
    from: datasetById('credits-by-date-model'),
    merge: (parts) => mergeCreditUsage(parts.map(withoutDate) as never) as unknown as Row[],
  },
  ...ROLLUPS.filter((r) => r.from === 'cost-by-day').map((r): SpanKind => ({
    // Totals over the span, as a month's are: one point per group, dated by the span.
    id: `span:${r.id}`,
    from: rollupDataset(r),
    merge: (parts, span) =>
      mergeCostPoints(
        parts as unknown as CostPoint[][],
        { start_date: formatDay(span.start), end_date: formatDay(span.end) },
        false,
      ) as unknown as Row[],
  })),
];

/** Spans of 2^2 to 2^7 days: a range of up to 90 days is a few of them and at most 3 days at each end. */
const LEVELS = [2, 3, 4, 5, 6, 7];

/** The spans summing a day dataset (or cost rollup), as a dataset the cover reads like any other. */
export function spanOf(datasetId: string): Dataset | undefined {
  const kind = KINDS.find((k) => k.from.id === datasetId);
  return kind && { ...kind.from, id: kind.id };
}

/** Spans overlapping days that are written again are dropped, in the same transaction: a span never outlives its days. */
export async function dropSpans(db: Db, dataset: string, start: number, end: number): Promise<void> {
  const ids = KINDS.filter((k) => k.from.id === dataset).map((k) => k.id);
  if (ids.length === 0) return;
  const longest = 2 ** LEVELS.at(-1)!;
  for (const table of ['history_rows', 'history_blocks'] as const)
    await db
      .deleteFrom(table)
      .where('dataset', 'in', ids)
      .where('start_day', '>=', start - longest)
      .where('start_day', '<=', end)
      .where('end_day', '>=', start)
      .execute();
}

interface Held {
  start: number;
  end: number;
  fetched_at: string;
}

/** The final (never expiring) blocks of a dataset, of one length, by their first day. */
async function finalBlocks(db: Db, dataset: string, length: number): Promise<Map<number, Held>> {
  const rows = await db
    .selectFrom('history_blocks')
    .select(['start_day', 'end_day', 'fetched_at', 'expires_at'])
    .where('dataset', '=', dataset)
    .orderBy('start_day')
    .execute();
  const out = new Map<number, Held>();
  for (const r of rows) {
    const [start, end] = [Number(r.start_day), Number(r.end_day)];
    if (end - start + 1 === length && r.expires_at === null) out.set(start, { start, end, fetched_at: r.fetched_at });
  }
  return out;
}

/**
 * Builds the spans the stored days allow and the store lacks, level by level (a span from the 4 days or the two
 * spans below it), each in a transaction that first checks its parts are still those it read. Returns how many.
 */
export async function buildSpans(db: Db, signal?: AbortSignal): Promise<number> {
  let built = 0;
  for (const kind of KINDS) {
    for (const level of LEVELS) {
      const size = 2 ** level;
      const partSize = level === LEVELS[0] ? 1 : size / 2;
      const partsFrom = level === LEVELS[0] ? kind.from.id : kind.id;
      const parts = await finalBlocks(db, partsFrom, partSize);
      const have = await finalBlocks(db, kind.id, size);
      for (const first of parts.keys()) {
        if (signal?.aborted) return built;
        if (first % size !== 0 || have.has(first)) continue;
        const run: Held[] = [];
        for (let d = first; d < first + size; d += partSize) if (parts.has(d)) run.push(parts.get(d)!);
        if (run.length !== size / partSize) continue;
        if (await writeSpan(db, kind, partsFrom, run)) built++;
      }
    }
  }
  return built;
}

async function writeSpan(db: Db, kind: SpanKind, partsFrom: string, run: Held[]): Promise<boolean> {
  const span = { start: run[0]!.start, end: run.at(-1)!.end };
  const rows: Row[][] = [];
  for (const p of run) rows.push(await readRows(db, partsFrom, p.start, p.end));
  const items = kind.merge(rows, span);
  const fetched_at = run.map((p) => p.fetched_at).reduce((a, b) => (a <= b ? a : b));
  return db.transaction().execute(async (tx) => {
    const now = await tx
      .selectFrom('history_blocks')
      .select(['start_day', 'fetched_at'])
      .where('dataset', '=', partsFrom)
      .where('start_day', '>=', span.start)
      .where('end_day', '<=', span.end)
      .where('expires_at', 'is', null)
      .execute();
    const same = run.every((p) => now.some((n) => Number(n.start_day) === p.start && n.fetched_at === p.fetched_at));
    if (!same) return false;
    const at = { dataset: kind.id, ...span };
    await clear(tx, at);
    await insertRows(tx, kind.id, at, items, 0);
    await insertBlock(tx, { ...at, grain: 'day', fetched_at, expires_at: null }, items.length);
    return true;
  });
}
