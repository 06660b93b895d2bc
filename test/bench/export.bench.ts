import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Writable } from 'node:stream';
import { METRIC_FIELDS } from '../../src/contract/metrics.js';
import type { ExportKind } from '../../src/export/columns.js';
import { runExport } from '../../src/export/export-run.js';
import type { ExportFormat } from '../../src/export/export-args.js';
import { openHistory } from '../../src/history/store/open-history.js';
import { daysAt } from '../../src/domain/published-days.js';
import { formatDay, parseIsoDay } from '../../src/util/utc-date.js';

const FIRST = parseIsoDay('2026-11-01')!;

function activity(i: number) {
  return {
    user_email: `person${i}@example.com`,
    active_days: 1,
    metrics: Object.fromEntries(METRIC_FIELDS.map((f, j) => [f, (i * 7 + j) % 500])),
  };
}

function cost(i: number, day: number) {
  return {
    start_date: formatDay(day),
    end_date: formatDay(day),
    cost_metrics: {
      billed_amount_usd: `${i % 40}.${String(i).padStart(6, '0')}`,
      estimated_customer_cost_usd: `${i % 40}.${String(i).padStart(6, '0')}`,
      base_cost_usd: '0.812300',
      surcharge_usd: '0.100000',
      input_tokens: 120_000 + i,
      output_tokens: 8_000 + i,
      cache_read_tokens: 40_000,
      cache_write_tokens: 1_000,
      credits_consumed: '12.50',
    },
    group_by_values: {
      product_display_name: 'Agent',
      byok_status: 'COST_ANALYTICS_BYOK_STATUS_NON_BYOK',
      resource_display_name: `model-${i % 5}`,
      resource_type: 'COST_ANALYTICS_RESOURCE_TYPE_MODEL',
      user_info: { user_type: 'COST_ANALYTICS_USER_TYPE_USER', user_email: `person${i}@example.com` },
    },
  };
}

/** Bytes counted, then dropped: what the export costs without the disk. */
const discard = () =>
  new Writable({
    write(_chunk, _encoding, done) {
      done();
    },
  });

/** The export's rows per second at 10,000 and 50,000 people. */
export async function benchExport(print: (line: string) => void): Promise<void> {
  await benchExportOf(print, 10_000, 7);
  await benchExportOf(print, 50_000, 2);
}

/** The export's rows per second from a SQLite store of `people` rows a day for `days` days. */
async function benchExportOf(print: (line: string) => void, people: number, days: number): Promise<void> {
  print(`\n## Export (SQLite store, ${people} people × ${days} days, output discarded)`);
  print('| what | format | rows | seconds | rows/s |');
  print('| --- | --- | --- | --- | --- |');
  const dir = mkdtempSync(join(tmpdir(), 'export-bench-'));
  const store = (await openHistory({ kind: 'sqlite', path: join(dir, 'h.sqlite') }, 'bench'))!;
  try {
    for (let d = 0; d < days; d++) {
      const day = FIRST + d;
      const base = { start: day, end: day, grain: 'day' as const, fetched_at: '', expires_at: null };
      const people_ = Array.from({ length: people }, (_, i) => i);
      await store.put([
        { ...base, dataset: 'user-activity', items: people_.map(activity) },
        { ...base, dataset: 'cost-by-day', items: people_.map((i) => cost(i, day)) },
      ]);
    }
    const runs: [ExportKind, ExportFormat][] = [
      ['user-activity', 'csv'],
      ['user-activity', 'parquet'],
      ['cost', 'csv'],
      ['cost', 'parquet'],
    ];
    for (const [what, format] of runs) {
      const started = performance.now();
      const args = { from: FIRST, to: FIRST + days - 1, what, format, out: undefined };
      await runExport(store, args, {
        days: daysAt(Date.parse('2026-12-01T12:00:00Z'), 3),
        masks: { email: (e) => e, text: (t) => t },
        say: () => {},
        open: () => ({ out: discard(), close: async () => {}, abort: async () => {} }),
      });
      const seconds = (performance.now() - started) / 1000;
      const rows = people * days;
      print(`| ${what} | ${format} | ${rows} | ${seconds.toFixed(2)} | ${Math.round(rows / seconds)} |`);
    }
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
