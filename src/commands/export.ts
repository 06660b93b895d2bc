import { createWriteStream } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import type { Writable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { parseExportArgs, type ExportArgs } from '../export/export-args.js';
import { runExport, type ExportOut } from '../export/export-run.js';
import { runOneShot, type OneShot } from './command-opening.js';
import { exportShape } from './export-shape.js';

export const EXPORT_HELP = `Usage: org-analytics-mcp export --from YYYY-MM-DD --to YYYY-MM-DD --what WHAT --format FORMAT
                             [--group-by GROUPING [--granularity day|total]] [--teams T1,T2]
                             [--out FILE] [--pii pseudonymous] [server options]

Writes the days the history store holds (fill it with org-analytics-mcp sync) for spreadsheets and BI,
one row per identity and day (and model, or cost group), to standard output or to FILE. Decimals are
written exactly as the API sends them; emails become pseudonyms with --pii pseudonymous. Exit: 0 when
written (days the store lacks are named on stderr), 1 when the store holds none of the days or writing
failed, 2 on a usage error, 130 when interrupted (FILE is then left as it was).

  --from, --to DAY       the first and last day, UTC, inclusive
  --what WHAT            user-activity | credits | cost | chargeback (billed USD and credits per month
                         and group, each person in their primary group that day; needs --directory)
  --by GROUPING          chargeback's groups: cost_center (default), team, team:N or a directory column
  --group-by GROUPING    user-activity, credits, cost: one row per day and group instead of per identity
                         (team, team:N for its first N levels, or a directory column; needs --directory):
                         date, group, members (identities counted), then the figures summed exactly;
                         each identity in its groups of that day, someone in two teams in each, people
                         the directory does not place in (unassigned), cost of no person in (no person);
                         each day ends with a (total) row counting each identity once (of --teams, if
                         given): leave it out when summing groups, which add up to it when no one is in
                         two groups; with --pii pseudonymous, groups under --min-group-size fold
  --granularity WHEN     day (default): rows per day and group; total: one row per group over the range
                         (start_date, end_date; members counted once over the range)
  --teams T1,T2          only identities in these teams or below them, on each day (needs --directory);
                         without --group-by, their rows per identity
  --format FORMAT        csv (RFC 4180, with a header row) | parquet
  --out FILE             write to FILE instead of standard output
  --history WHERE        the store: auto, a file path, or a postgres:// URL (as for sync)

Server options: see org-analytics-mcp --help.
`;

const COMMAND = 'org-analytics-mcp export';

const EXPORT = {
  name: 'export',
  help: EXPORT_HELP,
  args: (argv: string[]) => parseExportArgs(argv, COMMAND),
  history: {
    needs: () => 'export reads the history store, and there is none here',
    unopened: 'no history store could be opened: see the log above for why',
  },
} satisfies OneShot<ExportArgs>;

/** `org-analytics-mcp export`: the stored days of one dataset as CSV or Parquet; the exit code. */
export async function runExportCommand(
  argv: string[],
  env: NodeJS.ProcessEnv,
  io: { stdout: Writable; say: (line: string) => void; signal?: AbortSignal } = {
    stdout: process.stdout,
    say: (line) => process.stderr.write(`${line}\n`),
  },
): Promise<number> {
  // The caller's stop, else Ctrl-C or a kill: either stops the export between rows, so FILE is not left half written.
  const given = io.signal;
  const stop = given && (() => ({ signal: given, release: () => {} }));
  return runOneShot(
    EXPORT,
    argv,
    env,
    async ({ args, runtime, history, say, signal }) => {
      const masks = { email: (e: string) => runtime.pii.email(e), text: (t: string) => runtime.pii.text(t) };
      const shape = await exportShape(args, runtime, masks, say);
      if (typeof shape === 'number') return shape;
      const ioOut = { days: runtime.client.days(), masks, say, open: () => openOut(args, io.stdout), signal };
      return runExport(history.source.store, args, ioOut, shape);
    },
    { write: io.say, stop },
  );
}

/**
 * The output: FILE, written under a temporary name next to it (0600) and renamed over FILE once whole, so an
 * interrupted or failed export leaves FILE as it was; or standard output, left open.
 */
function openOut(args: ExportArgs, stdout: Writable): ExportOut {
  if (!args.out) return { out: stdout, close: async () => {}, abort: async () => {} };
  const target = args.out;
  const partial = `${target}.partial-${process.pid}`;
  const out = createWriteStream(partial, { mode: 0o600 });
  return {
    out,
    close: async () => {
      out.end();
      await finished(out);
      await rename(partial, target);
    },
    abort: async () => {
      out.destroy();
      await rm(partial, { force: true });
    },
  };
}
