import type { Kysely } from 'kysely';
import type { DayRange } from '../../../domain/dates.js';
import { mergeCostPoints, type CostPoint } from '../../../upstream/endpoints/cost-analytics.js';
import { mergeCreditUsage } from '../../../upstream/endpoints/credit-usage-by-user.js';
import { mergeUserActivity } from '../../../upstream/endpoints/user-activity.js';
import { formatDay } from '../../../util/utc-date.js';
import { datasetById, type Dataset } from '../datasets.js';
import { spanId, stagingId } from '../block-ids.js';
import { batchStaged, clear, insertBlock, insertPositioned, insertRows, readRecords } from '../store-rows.js';
import { passesFor, shareOf } from './passes.js';
import type { HistoryTables } from '../store-tables.js';
import { ROLLUPS, perIdentity, rollupDataset } from './cost-rollups.js';

/**
 * Spans: stored days (and months) summed per identity over aligned runs of 2 to 128 days (and 2 to 16 months):
 * a run of 2^k units starts on a unit number divisible by 2^k. `buildSpans` builds them after a sync. Sums over
 * disjoint days add up exactly and the merges keep rows in order of first appearance, so a range read as a few
 * runs, months and days is the same answer as its days read one by one, from a few blocks instead of up to 90.
 */

type Row = Record<string, unknown>;
type Db = Kysely<HistoryTables>;

/** Days, or calendar months numbered from year 0 (a month's number is year × 12 + month). */
type Unit = 'day' | 'month';
const monthNumber = (day: number) => {
  const d = new Date(day * 86_400_000);
  return d.getUTCFullYear() * 12 + d.getUTCMonth();
};
const unitOf = (unit: Unit, day: number) => (unit === 'day' ? day : monthNumber(day));

export interface SpanKind {
  id: string;
  /** The dataset (or cost rollup) it sums, of days or of months. */
  from: Dataset;
  unit: Unit;
  /** The lengths of its runs, in units: the first level is summed from `from`, each next from two of the one below. */
  levels: number[];
  /** Whether its records are per identity: summed in passes over shares of the identities. */
  perIdentity: boolean;
  merge(parts: Row[][], span: DayRange): Row[];
}

const withoutDate = (rows: Row[]) =>
  rows.map((row) => {
    const { date: _, ...rest } = row;
    return rest;
  });

const userActivitySums = (parts: Row[][]) => mergeUserActivity(parts as never) as unknown as Row[];
// Per identity and model, without the day: the rows of a credit question that is not by date.
const creditSums = (parts: Row[][]) => mergeCreditUsage(parts.map(withoutDate) as never) as unknown as Row[];
// Totals over the run, as a month's are: one point per group, dated by the run.
const costSums = (parts: Row[][], span: DayRange) =>
  mergeCostPoints(
    parts as unknown as CostPoint[][],
    { start_date: formatDay(span.start), end_date: formatDay(span.end) },
    false,
  ) as unknown as Row[];

/** Runs of 2 to 128 days: a range of up to 90 days is a few of them and at most a day at each end. */
const DAY_LEVELS = [2, 4, 8, 16, 32, 64, 128];
/** Runs of 2 to 16 months: two years are a few of them. */
const MONTH_LEVELS = [2, 4, 8, 16];

const kind = (from: Dataset, unit: Unit, merge: SpanKind['merge'], perIdentity = true): SpanKind => ({
  id: spanId(from.id),
  from,
  unit,
  levels: unit === 'day' ? DAY_LEVELS : MONTH_LEVELS,
  perIdentity,
  merge,
});

export const KINDS: readonly SpanKind[] = [
  kind(datasetById('user-activity'), 'day', userActivitySums),
  kind(datasetById('user-activity-months'), 'month', userActivitySums),
  kind(datasetById('credits-by-date-model'), 'day', creditSums),
  kind(datasetById('credits-by-model-months'), 'month', creditSums),
  ...ROLLUPS.map((r) => kind(rollupDataset(r), r.from === 'cost-by-day' ? 'day' : 'month', costSums, perIdentity(r))),
];

/** The spans summing a dataset (or cost rollup) of days or months, as a dataset the cover reads like any other. */
export function spanOf(datasetId: string): Dataset | undefined {
  const found = KINDS.find((k) => k.from.id === datasetId);
  return found && { ...found.from, id: found.id };
}

/** Spans overlapping days that are written again are dropped, in the same transaction: a span never outlives its days. */
export async function dropSpans(db: Db, dataset: string, start: number, end: number): Promise<void> {
  for (const k of KINDS.filter((k) => k.from.id === dataset)) {
    const longest = k.levels.at(-1)! * (k.unit === 'day' ? 1 : 31);
    for (const table of ['history_rows', 'history_blocks'] as const)
      await db
        .deleteFrom(table)
        .where('dataset', '=', k.id)
        .where('start_day', '>=', start - longest)
        .where('start_day', '<=', end)
        .where('end_day', '>=', start)
        .execute();
  }
}

interface Held {
  start: number;
  end: number;
  rows: number;
  fetched_at: string;
}

/** The final (never expiring) blocks of a dataset that are `length` units long, by their first unit. */
async function finalBlocks(db: Db, dataset: string, unit: Unit, length: number): Promise<Map<number, Held>> {
  const rows = await db
    .selectFrom('history_blocks')
    .select(['start_day', 'end_day', 'rows', 'fetched_at', 'expires_at'])
    .where('dataset', '=', dataset)
    .orderBy('start_day')
    .execute();
  const out = new Map<number, Held>();
  for (const r of rows) {
    const [start, end] = [Number(r.start_day), Number(r.end_day)];
    const first = unitOf(unit, start);
    if (unitOf(unit, end) - first + 1 === length && r.expires_at === null)
      out.set(first, { start, end, rows: Number(r.rows), fetched_at: r.fetched_at });
  }
  return out;
}

/**
 * Builds the spans the stored days allow and the store lacks, level by level (a span from its days or the two
 * spans below it), each in a transaction that first checks its parts are still those it read. Returns how many.
 */
export async function buildSpans(db: Db, signal?: AbortSignal, onBuilt?: (built: number) => void): Promise<number> {
  let built = 0;
  for (const k of KINDS) {
    for (const [i, size] of k.levels.entries()) {
      const partSize = i === 0 ? 1 : k.levels[i - 1]!;
      const partsFrom = i === 0 ? k.from.id : k.id;
      const parts = await finalBlocks(db, partsFrom, k.unit, partSize);
      const have = await finalBlocks(db, k.id, k.unit, size);
      for (const first of parts.keys()) {
        if (signal?.aborted) return built;
        if (first % size !== 0 || have.has(first)) continue;
        const run: Held[] = [];
        for (let u = first; u < first + size; u += partSize) if (parts.has(u)) run.push(parts.get(u)!);
        if (run.length !== size / partSize) continue;
        const from = run.map((p) => ({ ...p, dataset: partsFrom, expires_at: null }));
        if (!(await writeSpan(db, k, from))) continue;
        built++;
        onBuilt?.(built);
      }
    }
  }
  return built;
}

/** A block a span is summed from: a day, a month or a shorter span, as it was when read. */
export interface Part {
  dataset: string;
  start: number;
  end: number;
  /** Its records: how many passes the span is summed in. */
  rows: number;
  fetched_at: string;
  expires_at: number | null;
}

/**
 * Writes the span of `parts` (in order, tiling it), summed a part at a time, in a transaction that first checks
 * each part is still the block it read; it expires with the first of them. Returns whether it was written. Sums
 * per identity over many records are summed in passes over shares of the identities (see passes.ts), each share
 * staged in order of first appearance and batched in the transaction: a sync's heap stays small.
 */
export async function writeSpan(db: Db, k: SpanKind, parts: readonly Part[]): Promise<boolean> {
  const span = { start: parts[0]!.start, end: parts.at(-1)!.end };
  const at = { dataset: k.id, ...span };
  const staged = { dataset: stagingId(k.id), ...span };
  const passes = k.perIdentity ? passesFor(parts.reduce((n, p) => n + p.rows, 0)) : 1;
  // The running sums of a share and one part of a block at a time: merges are associative.
  const sumShare = async (keep?: (identity: string | null) => boolean) => {
    let items: Row[] = [];
    let offset = 0;
    for (const p of parts)
      offset = await readRecords(db, p, (rows) => (items = k.merge([items, rows], span)), { keep, offset });
    return items;
  };
  let items: Row[] = [];
  let count = 0;
  if (passes === 1) count = (items = await sumShare()).length;
  else {
    await clear(db, staged);
    for (let pass = 0; pass < passes; pass++) {
      const share = await sumShare(shareOf(pass, passes));
      await insertPositioned(db, staged, share);
      count += share.length;
    }
  }
  const fetched_at = parts.map((p) => p.fetched_at).reduce((a, b) => (a <= b ? a : b));
  const expiring = parts.flatMap((p) => (p.expires_at === null ? [] : [p.expires_at]));
  const written = await db.transaction().execute(async (tx) => {
    for (const p of parts) {
      const same = await tx
        .selectFrom('history_blocks')
        .select('fetched_at')
        .where('dataset', '=', p.dataset)
        .where('start_day', '=', p.start)
        .where('end_day', '=', p.end)
        .where('fetched_at', '=', p.fetched_at)
        .executeTakeFirst();
      if (!same) return false;
    }
    await clear(tx, at);
    if (passes === 1) await insertRows(tx, k.id, at, items, 0);
    else {
      await batchStaged(tx, staged, at);
      await clear(tx, staged);
    }
    const expires_at = expiring.length ? Math.min(...expiring) : null;
    await insertBlock(tx, { ...at, grain: k.from.grain, fetched_at, expires_at }, count);
    return true;
  });
  // Parts written again meanwhile: the shares staged go, and the next sync sums the span anew.
  if (passes > 1 && !written) await clear(db, staged);
  return written;
}
