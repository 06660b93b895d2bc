import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { METRIC_FIELDS } from '../../src/contract/metrics.js';
import { HELP } from '../../src/config/config.js';
import type { HistoryStore } from '../../src/history/store/history-store.js';
import { startSimulator, type Simulator } from '../../src/simulator/index.js';
import { formatDay, parseIsoDay } from '../../src/util/utc-date.js';
import { storedHarness, type StoredHarness } from '../helpers/history.js';
import { NOW } from '../helpers/sim.js';
import { parseCsv } from '../helpers/parse-csv.js';
import { exportBinary, exportInProcess, readParquet } from './export-command.js';

// Needs `npm run build` first: part of these run the built `org-analytics-mcp export`.

type Row = Record<string, any>;
const str = (v: unknown) => (v === undefined || v === null ? '' : String(v));

/** What the export must write for a stored record, built here from the API's field names. */
const expected = {
  'user-activity': (date: string, r: Row) => [
    date,
    str(r.user_email),
    str(r.service_account_name),
    ...METRIC_FIELDS.map((f) => str(r.metrics[f])),
  ],
  credits: (date: string, r: Row) => [
    date,
    str(r.user_email),
    str(r.service_account_name),
    str(r.model_name),
    str(r.credits_consumed),
  ],
  cost: (date: string, r: Row) => {
    const g = r.group_by_values ?? {};
    const u = g.user_info ?? {};
    const m = r.cost_metrics;
    return [
      date,
      str(u.user_email),
      str(u.service_account_name),
      ...[g.product_display_name, g.byok_status, g.resource_display_name, g.resource_type].map(str),
      ...[u.user_type, u.bot_name, g.expert_info?.expert_id, g.expert_info?.name].map(str),
      ...[
        'billed_amount_usd',
        'estimated_customer_cost_usd',
        'base_cost_usd',
        'surcharge_usd',
        'input_tokens',
        'output_tokens',
        'cache_read_tokens',
        'cache_write_tokens',
        'credits_consumed',
      ].map((f) => str(m[f])),
    ];
  },
};
const DATASET = { 'user-activity': 'user-activity', credits: 'credits-by-date-model', cost: 'cost-by-day' } as const;

/** A planted day: a name that needs quoting, a decimal with trailing digits, a token count past 2^53. */
const PLANTED_DAY = '2026-11-01';
const PLANTED = {
  start_date: PLANTED_DAY,
  end_date: PLANTED_DAY,
  cost_metrics: {
    billed_amount_usd: '0.000000012300',
    estimated_customer_cost_usd: '0.000000012300',
    base_cost_usd: '0.000000010000',
    surcharge_usd: '0.000000002300',
    input_tokens: '9007199254740993',
    output_tokens: 12,
    cache_read_tokens: 0,
    cache_write_tokens: 0,
    credits_consumed: '1.50',
  },
  group_by_values: {
    product_display_name: 'Agent, "CLI"',
    resource_display_name: 'model\r\nx',
    user_info: { user_type: 'COST_ANALYTICS_USER_TYPE_SERVICE_ACCOUNT', service_account_name: 'ci, "nightly"' },
  },
};

describe('org-analytics-mcp export, from a store the sync filled (SQLite, simulator over HTTP)', () => {
  let sim: Simulator;
  let harness: StoredHarness;
  let store: HistoryStore;
  let path: string;
  let dir: string;

  beforeAll(async () => {
    sim = await startSimulator({ users: 40, now: NOW, rateLimit: false, token: 'rw' });
    harness = await storedHarness({ historyDays: 10, historyMonths: 0 }, { simulator: sim });
    store = harness.history.source.store;
    path = harness.where;
    dir = mkdtempSync(join(tmpdir(), 'export-'));
    const day = parseIsoDay(PLANTED_DAY)!;
    await store.put([
      {
        dataset: 'cost-by-day',
        start: day,
        end: day,
        grain: 'day',
        fetched_at: NOW,
        expires_at: null,
        items: [PLANTED],
      },
    ]);
  }, 60_000);
  afterAll(async () => {
    await harness?.close();
    await sim?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** The stored days of a dataset in [from, to] and the rows the export must write for them. */
  async function stored(what: keyof typeof expected, from: string, to: string) {
    const [a, b] = [parseIsoDay(from)!, parseIsoDay(to)!];
    const rows: string[][] = [];
    const blocks = (await store.blocks(DATASET[what], a, b)).filter((x) => x.grain === 'day');
    for (const block of blocks)
      for (const r of await store.rows(DATASET[what], block.start, block.end))
        rows.push(expected[what](formatDay(block.start), r));
    return { days: blocks.length, rows };
  }

  const server = () => ['--history', path, '--api-token', sim.token, '--base-url', sim.url];

  /** The command in this process: its exit code, what it wrote, and what it said. */
  const inProcess = (argv: string[]) => exportInProcess([...argv, ...server()]);

  /** The built binary, as a person or cron runs it. */
  const binary = (argv: string[]) => exportBinary([...argv, ...server()]);

  it.each(['user-activity', 'credits', 'cost'] as const)(
    'writes %s as CSV: the header, then every stored record of every day, values exact',
    async (what) => {
      const { code, out, said } = await inProcess([
        '--from',
        '2026-11-11',
        '--to',
        '2026-11-20',
        '--what',
        what,
        '--format',
        'csv',
      ]);
      expect(code).toBe(0);
      const want = await stored(what, '2026-11-11', '2026-11-20');
      // Credits are stored up to today, the others up to the latest published day: 9 or 10 of these days.
      expect(want.days).toBeGreaterThanOrEqual(9);
      expect(want.rows.length).toBeGreaterThan(10);
      const [header, ...rows] = parseCsv(out);
      expect(header!.slice(0, 3)).toEqual(['date', 'user_email', 'service_account_name']);
      if (what === 'user-activity') expect(header!.slice(3)).toEqual([...METRIC_FIELDS]);
      if (what === 'credits') expect(header!.slice(3)).toEqual(['model_name', 'credits_consumed']);
      if (what === 'cost') expect(header).toContain('billed_amount_usd');
      expect(rows).toEqual(want.rows);
      expect(out.endsWith('\r\n')).toBe(true);
      expect(said).toContain(`${want.rows.length} rows of ${want.days} stored days written`);
    },
  );

  it('quotes what needs quoting, and keeps decimals and big token counts exact (the planted day)', async () => {
    const { code, out } = await inProcess([
      '--from',
      PLANTED_DAY,
      '--to',
      PLANTED_DAY,
      '--what',
      'cost',
      '--format',
      'csv',
    ]);
    expect(code).toBe(0);
    expect(out).toContain('2026-11-01,,"ci, ""nightly""","Agent, ""CLI""",,"model\r');
    expect(out).toContain(
      ',0.000000012300,0.000000012300,0.000000010000,0.000000002300,9007199254740993,12,0,0,1.50\r\n',
    );
    const [, row] = parseCsv(out);
    expect(row).toEqual(expected.cost(PLANTED_DAY, PLANTED));
  });

  it('writes pseudonyms, not emails, with --pii pseudonymous', async () => {
    const args = ['--from', '2026-11-11', '--to', '2026-11-20', '--what', 'credits', '--format', 'csv'];
    const plain = parseCsv((await inProcess(args)).out);
    const masked = parseCsv((await inProcess([...args, '--pii', 'pseudonymous'])).out);
    expect(masked.length).toBe(plain.length);
    const emails = plain
      .slice(1)
      .map((r) => r[1])
      .filter(Boolean);
    expect(emails.length).toBeGreaterThan(0);
    const text = masked.map((r) => r.join(',')).join('\n');
    for (const email of emails) expect(text).not.toContain(email!);
    const pseudonyms = masked
      .slice(1)
      .map((r) => r[1])
      .filter(Boolean);
    expect(pseudonyms.length).toBe(emails.length);
    for (const p of pseudonyms) expect(p).toMatch(/^user-[0-9a-f]{12}@/);
    // The same person keeps one pseudonym; the other columns are untouched.
    expect(new Set(pseudonyms).size).toBe(new Set(emails.map((e) => e!.toLowerCase())).size);
    expect(masked.map((r) => r.slice(3))).toEqual(plain.map((r) => r.slice(3)));
  });

  it('the built binary writes Parquet that reads back as the CSV rows, counts as INT64', async () => {
    const range = ['--from', PLANTED_DAY, '--to', '2026-11-20', '--what', 'cost'];
    const file = join(dir, 'cost.parquet');
    const csv = await binary([...range, '--format', 'csv']);
    const parquet = await binary([...range, '--format', 'parquet', '--out', file]);
    expect([csv.status, parquet.status]).toEqual([0, 0]);
    expect(parquet.stdout).toBe('');
    const [header, ...rows] = parseCsv(csv.stdout);
    const read = (await readParquet(file)) as Row[];
    expect(read.length).toBe(rows.length);
    expect(typeof read[0]!.input_tokens).toBe('bigint');
    expect(read.map((r) => header!.map((h) => str(r[h])))).toEqual(rows);
    expect(rows).toContainEqual(expected.cost(PLANTED_DAY, PLANTED));
  });

  it('names the days the store lacks and the sync that fills them, and writes the rest', async () => {
    const run = await binary([
      '--from',
      '2026-10-30',
      '--to',
      '2026-11-20',
      '--what',
      'user-activity',
      '--format',
      'csv',
    ]);
    expect(run.status).toBe(0);
    expect(run.stderr).toContain('the store lacks 12 of the days asked for user-activity: 2026-10-30..2026-11-10');
    expect(run.stderr).toMatch(/org-analytics-mcp sync --history-days \d+/);
    expect(parseCsv(run.stdout).length - 1).toBe(
      (await stored('user-activity', '2026-11-11', '2026-11-20')).rows.length,
    );
  });

  it('says its flags with --help, and the server --help names it', async () => {
    const run = await binary(['--help']);
    expect(run.status).toBe(0);
    expect(run.stdout).toContain('--what WHAT            user-activity | credits | cost');
    expect(HELP).toContain('org-analytics-mcp export [options]');
  });

  it('exits 1 when the store holds none of the days, writing nothing', async () => {
    const run = await binary(['--from', '2025-01-01', '--to', '2025-01-03', '--what', 'credits', '--format', 'csv']);
    expect(run.status).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain('holds none of the days 2025-01-01..2025-01-03');
  });

  it.each([
    [['--from', '2026-11-31', '--to', '2026-12-01', '--what', 'cost', '--format', 'csv'], /--from must be a day/],
    [['--from', '2026-11-12', '--to', '2026-11-11', '--what', 'cost', '--format', 'csv'], /is after --to/],
    [['--from', '2026-11-11', '--to', '2026-11-12', '--what', 'costs', '--format', 'csv'], /--what must be/],
    [['--from', '2026-11-11', '--to', '2026-11-12', '--what', 'cost', '--format', 'xlsx'], /--format must be/],
    [['--to', '2026-11-12', '--what', 'cost', '--format', 'csv'], /--from is required/],
  ])('exits 2 on a usage error: %j', async (argv, message) => {
    const run = await binary(argv);
    expect(run.status).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(message);
  });
});
