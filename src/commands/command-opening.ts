import { parseArgs, type ParseArgsConfig } from 'node:util';
import { EXIT_FAILURE, UsageError, helpPointer, stopSignal } from '../config/cli-options.js';
import { loadConfig, type Config } from '../config/config.js';
import { secretScrubber } from '../logger.js';
import { createRuntime, type Runtime } from '../runtime/runtime.js';
import { startTelemetry } from '../runtime/telemetry.js';
import type { RuntimeHistory } from '../history/serving/runtime-history.js';
import { resolveCacheDir } from '../upstream/cache/cache-dir.js';

/** What a one-shot command declares; `openCommand` and `runOneShot` do the rest, the same way for each. */
export interface OneShot<Args = undefined> {
  /** The words after the program's name, e.g. 'sync' or 'auth status'. */
  name: string;
  /** Printed as it is on standard output for --help or -h, before anything else is read (see `helpRead`). */
  help?: string;
  /** Reads the command's own arguments and takes them out; the server's options read the rest. */
  args?: (argv: string[], env: NodeJS.ProcessEnv) => { args: Args; rest: string[] };
  /**
   * For a command whose reader takes --help as one of its options (login, api-key): whether it read it. Such a
   * command line is read first, so that one it cannot read is a usage error even with --help.
   */
  helpRead?: (args: Args) => boolean;
  /** Instead of the command line's server options (the tour's demo). */
  config?: Config;
  /**
   * A command that reads or fills the history store cannot start without one: what it needs (followed by why
   * there is none), and what it says when the store does not open.
   */
  history?: { needs: (why: string) => string; unopened: string };
  /** false: Ctrl-C ends it at once, as it has nothing to leave whole (the tour). */
  stops?: false;
}

/** How a stop reaches a command: Ctrl-C or a kill by default (`stopSignal`), or a caller's own. */
export type Stop = { signal: AbortSignal; release(): void };

export interface Opened<Args, History = RuntimeHistory | undefined> {
  args: Args;
  runtime: Runtime;
  /** The history store, opened: always there for a command that declares `history`. */
  history: History;
  /** A progress line on stderr, `org-analytics-mcp NAME: …`, secrets and people masked. */
  say: (line: string) => void;
  signal: AbortSignal;
}

type HistoryOf<C> = C extends { history: object } ? RuntimeHistory : RuntimeHistory | undefined;

export const programCommand = (name: string) => `org-analytics-mcp ${name}`;

/** A command line the command cannot run with: exit 2, pointing to the command's --help. */
export const usageError = (name: string, message: string) =>
  new UsageError(`${message}\n${helpPointer(programCommand(name))}`);

export const helpAsked = (argv: string[]) => argv.includes('--help') || argv.includes('-h');

/**
 * A command that takes only its own options (and words), read by node:util's parseArgs, strictly, with --help/-h
 * among them: parseArgs' refusals are usage errors (exit 2), and a line it cannot read is one even with --help.
 */
export function optionsCommand<const O extends NonNullable<ParseArgsConfig['options']>>(
  name: string,
  help: string,
  options: O,
) {
  const all: O & { help: { type: 'boolean'; short: 'h' } } = { ...options, help: { type: 'boolean', short: 'h' } };
  const read = (argv: string[]) => {
    try {
      return parseArgs({ args: argv, strict: true, allowPositionals: true, options: all });
    } catch (error) {
      throw usageError(name, (error as Error).message);
    }
  };
  return {
    name,
    help,
    args: (argv: string[]) => ({ args: read(argv), rest: [] }),
    helpRead: (args: ReturnType<typeof read>) => (args.values as { help?: boolean }).help === true,
  } satisfies OneShot<ReturnType<typeof read>>;
}

/** The first half, every command's: --help (printed: undefined), else its own arguments and the rest. */
export function openCommand<Args>(
  command: OneShot<Args>,
  argv: string[],
  env: NodeJS.ProcessEnv,
): { args: Args; rest: string[] } | undefined {
  const { help, helpRead } = command;
  if (help !== undefined && !helpRead && helpAsked(argv)) return void process.stdout.write(help);
  const read = command.args?.(argv, env) ?? { args: undefined as Args, rest: argv };
  if (help !== undefined && helpRead?.(read.args)) return void process.stdout.write(help);
  return read;
}

/** Nothing to read or fill: a command line that cannot work, not a failure while running. */
function checkHistory(command: Pick<OneShot, 'name' | 'history'>, config: Config): void {
  if (!command.history) return;
  const { kind } = config.history;
  const why =
    kind === 'none'
      ? '--history none keeps none'
      : kind === 'auto' && !resolveCacheDir(config.cacheDir)
        ? '--history auto keeps none without a cache directory (ANALYTICS_CACHE_DIR=none)'
        : undefined;
  if (why)
    throw usageError(command.name, `${command.history.needs(why)}: give --history a file path or a postgres:// URL.`);
}

/**
 * A command that talks to the API: the opening above, then the config, the history check, the runtime, the stop
 * signal and the history store opened; `body` runs, and the runtime closes whatever it answers or throws.
 * Resolves to the exit code; usage errors throw UsageError (exit 2).
 */
export async function runOneShot<Args, C extends OneShot<Args>>(
  command: C & OneShot<Args>,
  argv: string[],
  env: NodeJS.ProcessEnv,
  body: (opened: Opened<Args, HistoryOf<C>>) => Promise<number>,
  io: { write?: (line: string) => void; stop?: () => Stop } = {},
): Promise<number> {
  const read = openCommand(command, argv, env);
  if (!read) return 0;
  const config = command.config ?? loadConfig(read.rest, env);
  checkHistory(command, config);
  // OTLP, when OTEL_EXPORTER_OTLP_ENDPOINT asks for it: a sync's requests, progress and store, as a server's.
  const telemetry = await startTelemetry(env, false);
  const runtime = await createRuntime(config);
  telemetry.watch({ history: runtime.history, refreshHour: config.refreshHour });
  const scrub = secretScrubber(runtime.secrets);
  const write = io.write ?? ((line: string) => process.stderr.write(`${line}\n`));
  const say = (line: string) => write(`${programCommand(command.name)}: ${runtime.pii.text(scrub(line))}`);
  const stop = command.stops === false ? undefined : (io.stop ?? stopSignal)();
  try {
    const history = await runtime.history?.open();
    if (command.history && !history) {
      say(command.history.unopened);
      return EXIT_FAILURE;
    }
    const signal = stop?.signal ?? new AbortController().signal;
    return await body({ args: read.args, runtime, history: history as HistoryOf<C>, say, signal });
  } finally {
    stop?.release();
    // The last export first, while the store is open for its gauges.
    await telemetry.shutdown();
    await runtime.close();
  }
}
