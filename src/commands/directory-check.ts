import { existsSync, readFileSync } from 'node:fs';
import { diffDirectories } from '../directory/directory-diff.js';
import { DirectoryFileError, parseDirectoryFile } from '../directory/directory-file.js';
import type { DirectoryRow } from '../directory/directory-row.js';
import { openCommand, optionsCommand, programCommand, usageError } from './command-opening.js';

const NAME = 'directory check';
const COMMAND = programCommand(NAME);

export const DIRECTORY_CHECK_HELP = `Usage: ${COMMAND} FILE [--directory IN_FORCE] [--json]

Validates a directory file (CSV with a header, or JSON lines) and prints what it would change against the directory
in force: identities added, removed and moved (teams or primary team changed), and those whose columns changed.
Nothing is changed. The directory in force is --directory, else ANALYTICS_DIRECTORY; without either, an empty one.
Exit 0 when the file is valid, 1 when it would be refused (each problem by line and column), 2 for bad arguments.

  --directory FILE   the directory in force to compare with
  --json             print the result as JSON
`;

const CHECK = optionsCommand(NAME, DIRECTORY_CHECK_HELP, {
  directory: { type: 'string' },
  json: { type: 'boolean' },
});

function rowsOf(file: string): DirectoryRow[] {
  if (!existsSync(file)) throw usageError(NAME, `${file}: no such file`);
  return parseDirectoryFile(file, readFileSync(file, 'utf8'));
}

/** `org-analytics-mcp directory check FILE`: a dry run of a new directory file. */
export function runDirectoryCheck(argv: string[], print: (line: string) => void, warn: (line: string) => void): number {
  const read = openCommand(CHECK, argv, process.env);
  if (!read) return 0;
  const { values, positionals } = read.args;
  if (positionals.length !== 1) throw usageError(NAME, 'give one FILE to check');
  const inForce = values.directory ?? process.env.ANALYTICS_DIRECTORY;
  let next: DirectoryRow[];
  try {
    next = rowsOf(positionals[0]!);
  } catch (error) {
    if (!(error instanceof DirectoryFileError)) throw error;
    warn(error.message);
    return 1;
  }
  const before = inForce ? rowsOf(inForce) : [];
  const diff = diffDirectories(before, next);
  const identities = new Set(next.map((r) => r.identity)).size;
  const teams = new Set(next.flatMap((r) => r.team.map((_, i) => r.team.slice(0, i + 1).join('/')))).size;
  if (values.json) {
    print(JSON.stringify({ valid: true, identities, teams, against: inForce ?? null, ...diff }));
    return 0;
  }
  const list = (ids: string[]) =>
    ids.length
      ? `: ${ids
          .slice(0, 10)
          .map((i) => i.slice(2))
          .join(', ')}${ids.length > 10 ? ', …' : ''}`
      : '';
  print(`${positionals[0]} is valid: ${identities} identities in ${teams} teams.`);
  print(`Against ${inForce ?? 'an empty directory'}:`);
  print(`  added ${diff.added.length}${list(diff.added)}`);
  print(`  removed ${diff.removed.length}${list(diff.removed)}`);
  print(`  moved ${diff.moved.length}${list(diff.moved)}`);
  print(`  columns changed ${diff.attributesChanged.length}${list(diff.attributesChanged)}`);
  return 0;
}
