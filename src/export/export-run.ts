import type { Writable } from 'node:stream';
import { EXIT_FAILURE } from '../config/cli-options.js';
import type { Days } from '../domain/published-days.js';
import { datasetById } from '../history/store/datasets.js';
import type { HistoryStore } from '../history/store/history-store.js';
import { lastStorableDay } from '../history/store/store-rules.js';
import { formatDay } from '../util/utc-date.js';
import {
  SHAPES,
  type DerivedShape,
  type ExportCell,
  type ExportShape,
  type Masks,
  type StoredKind,
} from './columns.js';
import type { ExportArgs } from './export-args.js';
import { csvSink, parquetSink } from './sinks.js';
import { dayRuns, storedDays, storedRows } from './stored-days.js';

export interface ExportIo {
  days: Days;
  masks: Masks;
  say: (line: string) => void;
  /** Opens the output: only once there is something to write. */
  open: () => ExportOut;
  /** Aborted when the export is interrupted (Ctrl-C): it stops, and a FILE is not left half written. */
  signal?: AbortSignal;
}

export interface ExportOut {
  out: Writable;
  /** Finishes the output: a FILE appears whole, under its name, only now. */
  close(): Promise<void>;
  /** Drops what was written to a FILE; standard output is left as it is. */
  abort(): Promise<void>;
}

/** Exit code of a command stopped by SIGINT, as shells report it. */
export const EXIT_INTERRUPTED = 130;

/** Writes the stored days of [from, to]; says which days the store lacks and how to fill them. The exit code. */
export async function runExport(
  store: HistoryStore,
  args: ExportArgs,
  io: ExportIo,
  shape: ExportShape | DerivedShape = SHAPES[args.what as StoredKind],
): Promise<number> {
  const { blocks, missing } = await storedDays(store, shape.dataset, args.from, args.to);
  if (missing.length) io.say(missingMessage(missing, args, lastStorableDay(datasetById(shape.dataset), io.days)));
  if (blocks.length === 0) {
    io.say(`the store (${store.where}) holds none of the days ${formatDay(args.from)}..${formatDay(args.to)}`);
    return EXIT_FAILURE;
  }
  const output = io.open();
  // A reader gone (`| head`: EPIPE) or a full disk is an 'error' event on the stream: kept, and the export stops.
  let failed: Error | undefined;
  output.out.on('error', (error) => (failed ??= error));
  const sink = args.format === 'csv' ? csvSink(output.out, shape.columns) : parquetSink(output.out, shape.columns);
  let rows = 0;
  try {
    for await (const cells of cellsOf(shape, storedRows(store, shape.dataset, blocks), io.masks)) {
      if (failed) throw failed;
      if (io.signal?.aborted) break;
      await sink.row(cells);
      rows++;
    }
    if (io.signal?.aborted) {
      await output.abort();
      io.say(`interrupted after ${rows} rows${args.out ? `: ${args.out} not written` : ''}`);
      return EXIT_INTERRUPTED;
    }
    await sink.end();
    if (failed) throw failed;
    await output.close();
  } catch (error) {
    await output.abort();
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EPIPE') io.say(`standard output was closed by its reader after ${rows} rows; stopped`);
    else
      io.say(
        `writing failed after ${rows} rows (${(error as Error).message})${args.out ? `: ${args.out} not written` : ''}`,
      );
    return EXIT_FAILURE;
  }
  io.say(`${rows} rows of ${blocks.length} stored days written${args.out ? ` to ${args.out}` : ''}`);
  return 0;
}

/** The rows to write: each stored record's cells, one day in memory at once; or what the days derive. */
async function* cellsOf(
  shape: ExportShape | DerivedShape,
  days: AsyncIterable<{ date: string; rows: Record<string, unknown>[] }>,
  masks: Masks,
): AsyncGenerator<ExportCell[]> {
  if ('derive' in shape) {
    yield* await shape.derive(days);
    return;
  }
  for await (const day of days) for (const record of day.rows) yield shape.cells(day.date, record, masks);
}

function missingMessage(missing: readonly number[], args: ExportArgs, last: number): string {
  const fillable = missing.filter((d) => d <= last);
  const later = missing.length - fillable.length;
  const parts = [`the store lacks ${missing.length} of the days asked for ${args.what}: ${dayRuns(missing)}`];
  if (fillable.length) parts.push(`fill them with: org-analytics-mcp sync --history-days ${last - fillable[0]! + 1}`);
  if (later) parts.push(`${later} of them are not published yet (the latest storable day is ${formatDay(last)})`);
  return parts.join('; ');
}
