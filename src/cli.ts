#!/usr/bin/env node
import { SIMULATOR_HELP, runSimulatorCommand } from './simulator/main.js';
import { VERSION } from './version.js';

const HELP = `Usage: org-analytics-mcp <command> [options]

Commands:
  simulator     run the upstream API simulator on loopback (see: org-analytics-mcp simulator --help)

Options:
  --help        show this help
  --version     show the version
`;


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
  if (command === undefined || command === '--help' || command === '-h') {
    process.stdout.write(HELP);
    return 0;
  }
  process.stderr.write(`Unknown command '${command}'.\n\n${HELP}\n${SIMULATOR_HELP}`);
  return 2;
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
