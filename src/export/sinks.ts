import { once } from 'node:events';
import type { Writable } from 'node:stream';
import { ByteWriter, ParquetWriter } from 'hyparquet-writer';
import type { ExportCell, Column } from './columns.js';
import { csvHeader, csvLine } from './csv.js';

/** Where the rows go, one by one; `end` finishes the file. */
export interface ExportSink {
  row(cells: readonly ExportCell[]): Promise<void> | void;
  end(): Promise<void>;
}

/** Writes to a stream and waits while the stream's buffer is full, so memory stays bounded. */
async function put(out: Writable, chunk: string | Uint8Array): Promise<void> {
  if (!out.write(chunk)) await once(out, 'drain');
}

const CSV_CHUNK = 64 * 1024;

export function csvSink(out: Writable, columns: readonly Column[]): ExportSink {
  let pending = csvHeader(columns);
  return {
    row(cells) {
      pending += csvLine(cells);
      if (pending.length < CSV_CHUNK) return;
      const chunk = pending;
      pending = '';
      return put(out, chunk);
    },
    async end() {
      if (pending) await put(out, pending);
    },
  };
}

/** Rows per Parquet row group: what is held in memory at once. */
export const ROW_GROUP = 50_000;

/** hyparquet-writer's byte writer, its bytes handed to a stream after each row group instead of kept. */
class StreamWriter extends ByteWriter {
  constructor(private readonly out: Writable) {
    super(1 << 20);
  }
  flush(): Promise<void> {
    const chunk = new Uint8Array(this.buffer.slice(0, this.index));
    this.index = 0;
    return put(this.out, chunk);
  }
  override finish(): Promise<void> {
    return this.flush();
  }
}

/** Texts (exact decimals among them) as UTF-8 strings; counts as INT64, exact past 2^53 too. */
export function parquetSink(out: Writable, columns: readonly Column[]): ExportSink {
  const writer = new StreamWriter(out);
  const parquet = new ParquetWriter({
    writer,
    schema: [
      { name: 'root', num_children: columns.length },
      ...columns.map((c) =>
        c.type === 'count'
          ? { name: c.name, type: 'INT64' as const, repetition_type: 'OPTIONAL' as const }
          : {
              name: c.name,
              type: 'BYTE_ARRAY' as const,
              converted_type: 'UTF8' as const,
              repetition_type: 'OPTIONAL' as const,
            },
      ),
    ],
    createdBy: 'org-analytics-mcp export',
  });
  let data: (string | bigint | null)[][] = columns.map(() => []);
  let rows = 0;
  const writeGroup = async () => {
    if (rows === 0) return;
    const columnData = columns.map((c, i) => ({ name: c.name, data: data[i]! }));
    data = columns.map(() => []);
    rows = 0;
    await parquet.write({ columnData, rowGroupSize: ROW_GROUP });
  };
  return {
    row(cells) {
      cells.forEach((cell, i) => {
        data[i]!.push(cell === null ? null : columns[i]!.type === 'count' ? BigInt(cell) : String(cell));
      });
      if (++rows >= ROW_GROUP) return writeGroup();
    },
    async end() {
      await writeGroup();
      await parquet.finish();
    },
  };
}
