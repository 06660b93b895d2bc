import { PassThrough } from 'node:stream';
import { parquetReadObjects } from 'hyparquet';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { METRIC_FIELDS } from '../../src/contract/metrics.js';
import { runExportCommand } from '../../src/commands/export.js';
import { startSimulator, type Simulator } from '../../src/simulator/index.js';
import { formatDay, parseIsoDay } from '../../src/util/utc-date.js';
import { storedHarness, type StoredHarness } from '../helpers/history.js';
import { parseCsv } from '../helpers/parse-csv.js';
import { NOW } from '../helpers/sim.js';

const token = `pg-export-${process.pid}-${Date.now()}`;

describe('org-analytics-mcp export from a PostgreSQL store (simulator over HTTP, a database of its own)', () => {
  let sim: Simulator;
  let stored: StoredHarness;

  beforeAll(async () => {
    sim = await startSimulator({ users: 30, now: NOW, rateLimit: false, token });
    stored = await storedHarness({ historyDays: 5, historyMonths: 0, engine: 'postgres' }, { simulator: sim });
  }, 60_000);
  afterAll(async () => {
    await stored?.close();
    await sim?.close();
  });

  async function exported(format: 'csv' | 'parquet') {
    const stdout = new PassThrough();
    const chunks: Buffer[] = [];
    stdout.on('data', (c: Buffer) => chunks.push(c));
    const argv = ['--from', '2026-11-16', '--to', '2026-11-20', '--what', 'user-activity', '--format', format];
    const server = ['--history', stored.where, '--api-token', token, '--base-url', sim.url];
    const code = await runExportCommand(
      [...argv, ...server],
      { ANALYTICS_CACHE_DIR: 'none' },
      { stdout, say: () => {} },
    );
    return { code, bytes: Buffer.concat(chunks) };
  }

  it('writes the stored records as CSV, and the same rows as Parquet', async () => {
    const store = stored.history.source.store;
    const want: string[][] = [];
    for (let day = parseIsoDay('2026-11-16')!; day <= parseIsoDay('2026-11-20')!; day++)
      for (const r of await store.rows('user-activity', day, day))
        want.push([
          formatDay(day),
          r.user_email ?? '',
          r.service_account_name ?? '',
          ...METRIC_FIELDS.map((f) => String((r.metrics as Record<string, number>)[f])),
        ] as string[]);
    expect(want.length).toBeGreaterThan(5);

    const csv = await exported('csv');
    expect(csv.code).toBe(0);
    const [header, ...rows] = parseCsv(csv.bytes.toString('utf8'));
    expect(rows).toEqual(want);

    const parquet = await exported('parquet');
    expect(parquet.code).toBe(0);
    const b = parquet.bytes;
    const read = (await parquetReadObjects({
      file: b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength),
    })) as Record<string, unknown>[];
    expect(typeof read[0]!.total_messages).toBe('bigint');
    expect(read.map((r) => header!.map((h) => (r[h] === null ? '' : String(r[h]))))).toEqual(want);
  });
});
