import { createWriteStream } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import type { Writable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { EXIT_FAILURE, UsageError, helpPointer, stopSignal } from '../config/cli-options.js';
import { loadConfig } from '../config/config.js';
import { secretScrubber } from '../logger.js';
import { createRuntime } from '../runtime/runtime.js';
import { resolveCacheDir } from '../upstream/cache/cache-dir.js';
import { parseExportArgs, type ExportArgs } from '../export/export-args.js';
import { runExport, type ExportOut } from '../export/export-run.js';

export const EXPORT_HELP = `Usage: org-analytics-mcp export --from YYYY-MM-DD --to YYYY-MM-DD --what WHAT --format FORMAT
                             [--out FILE] [--pii pseudonymous] [server options]

Writes the days the history store holds (fill it with org-analytics-mcp sync) for spreadsheets and BI,
one row per identity and day (and model, or cost group), to standard output or to FILE. Decimals are
written exactly as the API sends them; emails become pseudonyms with --pii pseudonymous. Exit: 0 when
written (days the store lacks are named on stderr), 1 when the store holds none of the days or writing
failed, 2 on a usage error, 130 when interrupted (FILE is then left as it was).

  --from, --to DAY       the first and last day, UTC, inclusive
  --what WHAT            user-activity | credits | cost
  --format FORMAT        csv (RFC 4180, with a header row) | parquet
  --out FILE             write to FILE instead of standard output
  --history WHERE        the store: auto, a file path, or a postgres:// URL (as for sync)

Server options: see org-analytics-mcp --help.
`;

const COMMAND = 'org-analytics-mcp export';

/** `org-analytics-mcp export`: the stored days of one dataset as CSV or Parquet; the exit code. */
export async function runExportCommand(
  argv: string[],
  env: NodeJS.ProcessEnv,
  io: { stdout: Writable; say: (line: string) => void; signal?: AbortSignal } = {
    stdout: process.stdout,
    say: (line) => process.stderr.write(`${line}\n`),
  },
): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(EXPORT_HELP);
    return 0;
  }
  const { args, rest } = parseExportArgs(argv, COMMAND);
  const config = loadConfig(rest, env);
  const where = config.history.trim().toLowerCase();
  if (where === 'none' || (where === 'auto' && !resolveCacheDir(config.cacheDir)))
    throw new UsageError(
      `export reads the history store, and there is none here: give --history a file path or a postgres:// URL.\n${helpPointer(COMMAND)}`,
    );
  const runtime = await createRuntime(config);
  const scrub = secretScrubber(runtime.secrets);
  const say = (line: string) => io.say(`${COMMAND}: ${runtime.pii.text(scrub(line))}`);
  const masks = { email: (e: string) => runtime.pii.email(e), text: (t: string) => runtime.pii.text(t) };
  // Ctrl-C (or a kill) stops the export between rows, so that FILE is not left half written.
  const stop = io.signal ? undefined : stopSignal();
  try {
    const store = (await runtime.history?.open())?.source.store;
    if (!store) {
      say('no history store could be opened: see the log above for why');
      return EXIT_FAILURE;
    }
    return await runExport(store, args, {
      days: runtime.client.days(),
      masks,
      say,
      open: () => openOut(args, io.stdout),
      signal: io.signal ?? stop?.signal,
    });
  } finally {
    stop?.release();
    await runtime.close();
  }
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
