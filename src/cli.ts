#!/usr/bin/env node
import { EXIT_FAILURE, EXIT_USAGE, UsageError, helpPointer } from './config/cli-options.js';
import { VERSION } from './version.js';

const print = (line: string) => process.stdout.write(`${line}\n`);
const warn = (line: string) => process.stderr.write(`${line}\n`);

/** Resolves to an exit code, or to -1 while a server keeps running. */
async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command === '--version' || command === '-v') {
    print(VERSION);
    return 0;
  }
  if (command === 'simulator') {
    const { runSimulatorCommand } = await import('./simulator/main.js');
    await runSimulatorCommand(rest, print, process.env);
    return -1;
  }
  if (command === 'tour') {
    const { runTour } = await import('./commands/tour.js');
    await runTour(print);
    return 0;
  }
  if (command === 'directory' && rest[0] === 'check') {
    const { runDirectoryCheck } = await import('./commands/directory-check.js');
    return runDirectoryCheck(rest.slice(1), print, warn);
  }
  if (command === 'api-key') {
    const { runApiKeyCommand } = await import('./commands/api-key.js');
    return runApiKeyCommand(rest, print, warn);
  }
  const out = { print, warn, env: process.env };
  if (command === 'login') return (await import('./commands/login.js')).runLoginCommand(rest, out);
  if (command === 'logout') return (await import('./commands/logout.js')).runLogoutCommand(rest, out);
  if (command === 'auth' && rest[0] === 'status')
    return (await import('./commands/auth-status.js')).runAuthStatusCommand(rest.slice(1), out);
  if (command === 'warm') {
    // Before the server's --help: `warm --help` describes the warm-up.
    const { runWarmCommand } = await import('./commands/warm.js');
    return runWarmCommand(rest, process.env);
  }
  if (command === 'sync') {
    const { runSyncCommand } = await import('./commands/sync.js');
    return runSyncCommand(rest, process.env);
  }
  if (command === 'alerts') {
    const { runAlertsCommand } = await import('./commands/alerts.js');
    return runAlertsCommand(rest, process.env);
  }
  if (command === 'export') {
    const { runExportCommand } = await import('./commands/export.js');
    return runExportCommand(rest, process.env);
  }
  if (argv.includes('--help') || argv.includes('-h')) {
    const { HELP } = await import('./config/config.js');
    process.stdout.write(HELP);
    return 0;
  }
  if (command !== undefined && !command.startsWith('-'))
    throw new UsageError(`Unknown command '${command}'.\n${helpPointer('org-analytics-mcp')}`);
  // Each command loads only its own code: the server stack stays out of --version, --help and the simulator.
  const { runServer } = await import('./main.js');
  await runServer(argv, process.env);
  return -1;
}

// Both commands exit 2 for a command line or environment they cannot run with, 1 for a failure while running.
main(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`org-analytics-mcp: ${error instanceof Error ? error.message : String(error)}\n`);
    // Exit now: a failure after the embedded simulator started (e.g. --http on a busy port) would otherwise hang.
    process.exit(error instanceof UsageError ? EXIT_USAGE : EXIT_FAILURE);
  },
);
