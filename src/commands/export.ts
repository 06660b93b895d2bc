import { createWriteStream } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import type { Writable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { parseExportArgs, type ExportArgs } from '../export/export-args.js';
import { runExport, type ExportOut } from '../export/export-run.js';
import { EXIT_FAILURE } from '../config/cli-options.js';
import { formatDay } from '../util/utc-date.js';
import { runOneShot, type OneShot } from './command-opening.js';
import { chargebackExport } from './export-chargeback.js';

export const EXPORT_HELP = `Usage: org-analytics-mcp export --from YYYY-MM-DD --to YYYY-MM-DD --what WHAT --format FORMAT
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
      const ioOut = {
        days: runtime.client.days(),
        masks: { email: (e: string) => runtime.pii.email(e), text: (t: string) => runtime.pii.text(t) },
        say,
        open: () => openOut(args, io.stdout),
        signal,
      };
      if (args.what !== 'chargeback') return runExport(history.source.store, args, ioOut);
      const view = await runtime.org?.over(formatDay(args.from), formatDay(args.to));
      if (!view) {
        const refused = runtime.orgState?.problem;
        say(
          refused
            ? `--what chargeback: the directory was refused, so no group can be given: ${refused}`
            : '--what chargeback needs a directory: add --directory FILE (a CSV of user_email, team, cost_center…)',
        );
        return EXIT_FAILURE;
      }
      const fold = runtime.config.pii === 'pseudonymous' ? runtime.org!.minGroupSize : undefined;
      return runExport(history.source.store, args, ioOut, chargebackExport(view, args.by ?? 'cost_center', fold));
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
