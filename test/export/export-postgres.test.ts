import { PassThrough } from 'node:stream';
import { parquetReadObjects } from 'hyparquet';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { METRIC_FIELDS } from '../../src/contract/metrics.js';
import { runExportCommand } from '../../src/export/export-command.js';
import { attachHistory, type RuntimeHistory } from '../../src/history/runtime-history.js';
import { syncOnce } from '../../src/history/sync-run.js';
import { createLogger } from '../../src/logger.js';
import { startSimulator, type Simulator } from '../../src/simulator/index.js';
import type { AnalyticsClient } from '../../src/upstream/client.js';
import { credentialFingerprint } from '../../src/upstream/credential.js';
import { formatDay, parseIsoDay } from '../../src/util/utc-date.js';
import { clientFor } from '../helpers/client.js';
import { parseCsv } from '../helpers/parse-csv.js';
import { NOW } from '../helpers/sim.js';

/** The real PostgreSQL every machine runs (.ci/run starts it): user postgres, trust auth. */
const PG_URL = process.env.HISTORY_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const token = `pg-export-${process.pid}-${Date.now()}`;

describe('org-analytics-mcp export from a PostgreSQL store (simulator over HTTP, a schema of its own)', () => {
  let sim: Simulator;
  let client: AnalyticsClient;
  let history: RuntimeHistory;

  beforeAll(async () => {
    sim = await startSimulator({ users: 30, now: NOW, rateLimit: false, token });
    client = clientFor(sim);
    const quiet = createLogger(
      'warn',
      (t) => t,
      () => {},
    );
    history = (await attachHistory(client, { history: PG_URL, cacheDir: undefined, demo: false }, quiet))!;
    const outcome = await syncOnce(client, history.source, { historyDays: 5, historyMonths: 0, syncShare: 1 }, {});
    expect(outcome.ran && outcome.result.failed).toEqual([]);
  }, 60_000);
  afterAll(async () => {
    await history?.close();
    await client?.close();
    await sim?.close();
    const c = new pg.Client({ connectionString: PG_URL });
    await c.connect();
    await c.query(`DROP SCHEMA IF EXISTS "org_analytics_${credentialFingerprint(token)}" CASCADE`);
    await c.end();
  });

  async function exported(format: 'csv' | 'parquet') {
    const stdout = new PassThrough();
    const chunks: Buffer[] = [];
    stdout.on('data', (c: Buffer) => chunks.push(c));
    const argv = ['--from', '2026-11-16', '--to', '2026-11-20', '--what', 'user-activity', '--format', format];
    const server = ['--history', PG_URL, '--api-token', token, '--base-url', sim.url];
    const code = await runExportCommand(
      [...argv, ...server],
      { ANALYTICS_CACHE_DIR: 'none' },
      { stdout, say: () => {} },
    );
    return { code, bytes: Buffer.concat(chunks) };
  }

  it('writes the stored records as CSV, and the same rows as Parquet', async () => {
    const store = history.source.store;
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
