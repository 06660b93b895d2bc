#!/usr/bin/env node
import { ConfigError, HELP } from './config.js';
import { runServer } from './main.js';
import { SIMULATOR_HELP, runSimulatorCommand } from './simulator/main.js';
import { VERSION } from './version.js';


async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command === '--version' || command === '-v') {
    process.stdout.write(`${VERSION}\n`);
    return 0;
  }
  if (command === 'simulator') {
    await runSimulatorCommand(rest, (line) => process.stdout.write(`${line}\n`));
    return -1;
  }
  if (command === 'tour') {
    const { runTour } = await import('./tour.js');
    await runTour((line) => process.stdout.write(`${line}\n`));
    return 0;
  }
  if (command === '--help' || command === '-h') {
    process.stdout.write(HELP);
    return 0;
  }
  if (command !== undefined && !command.startsWith('-')) {
    process.stderr.write(`Unknown command '${command}'.\n\n${HELP}\n${SIMULATOR_HELP}`);
    return 2;
  }
  try {
    await runServer(argv, process.env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`org-analytics-mcp: ${error.message}\n`);
    return 2;
  }
  return -1;
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`org-analytics-mcp: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  },
);
