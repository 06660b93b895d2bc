import { existsSync } from 'node:fs';
import { ApiKeysFileError, newApiKey, readKeysFile, writeKeysFile, type Role } from '../auth/api-keys.js';
import { openCommand, optionsCommand, programCommand, usageError } from './command-opening.js';

const NAME = 'api-key';
const COMMAND = programCommand(NAME);

export const API_KEY_HELP = `Usage: ${COMMAND} create --role read|write [--tenant NAME] --file FILE
       ${COMMAND} revoke ID --file FILE
       ${COMMAND} list --file FILE

Static API keys for a shared HTTP server (--api-keys-file FILE): callers send a key as a bearer token.
create prints the new key and its id once, on stdout; the file (0600) keeps only the key's sha256, with
the id, the role and the tenant. revoke removes a key: a running server stops accepting it within 10 s.
list prints each key's id, role, tenant and creation time; without the file it says so and exits 1.

  --role read|write   read: every read tool; write: also set_budget_overrides
  --tenant NAME       the tenant (organization) the key's caller belongs to, with --tenants-file
  --file FILE         the keys file, created (0600, in a folder made 0700) if missing
`;

function fail(message: string): never {
  throw usageError(NAME, message);
}

/** Its options and the action's words. */
const API_KEY = optionsCommand(NAME, API_KEY_HELP, {
  role: { type: 'string' },
  tenant: { type: 'string' },
  file: { type: 'string' },
});

/** `org-analytics-mcp api-key …`: exit code 0, 1 when list finds no file, or UsageError (exit 2) for what cannot be done. */
export function runApiKeyCommand(argv: string[], print: (line: string) => void, warn: (line: string) => void): number {
  const read = openCommand(API_KEY, argv, process.env);
  if (!read) return 0;
  const { values, positionals } = read.args;
  const [action, ...rest] = positionals;
  const file = values.file ?? fail('--file FILE is required: the keys file the server reads with --api-keys-file.');
  try {
    if (action === 'create') return create(file, values.role, values.tenant, rest, print, warn);
    if (action === 'revoke') return revoke(file, rest, warn);
    if (action === 'list') return list(file, print, warn);
  } catch (error) {
    if (error instanceof ApiKeysFileError) fail(error.message);
    throw error;
  }
  return fail(`Unknown action '${action ?? ''}': use create, revoke or list.`);
}

function create(
  file: string,
  role: string | undefined,
  tenant: string | undefined,
  extra: string[],
  print: (line: string) => void,
  warn: (line: string) => void,
): number {
  if (extra.length) fail(`create takes no argument '${extra[0]}'.`);
  if (role !== 'read' && role !== 'write') fail(`--role must be read or write${role ? `, got '${role}'` : ''}.`);
  if (tenant !== undefined && !tenant.trim()) fail('--tenant needs a name.');
  const keys = readKeysFile(file);
  const { key, entry } = newApiKey(role as Role, tenant?.trim() ?? null);
  writeKeysFile(file, [...keys, entry]);
  print(`id:  ${entry.id}`);
  print(`key: ${key}`);
  warn(
    `${COMMAND}: added ${entry.id} (${role}${entry.tenant ? `, tenant ${entry.tenant}` : ''}) to ${file}. The key is not shown again.`,
  );
  return 0;
}

function revoke(file: string, ids: string[], warn: (line: string) => void): number {
  if (ids.length !== 1) fail('revoke takes one key id, e.g. k_1a2b3c4d (see api-key list).');
  const keys = readKeysFile(file);
  const left = keys.filter((k) => k.id !== ids[0]);
  if (left.length === keys.length) fail(`No key ${ids[0]} in ${file}.`);
  writeKeysFile(file, left);
  warn(`${COMMAND}: revoked ${ids[0]}; a running server stops accepting it within 10 s.`);
  return 0;
}

function list(file: string, print: (line: string) => void, warn: (line: string) => void): number {
  if (!existsSync(file)) {
    warn(`${COMMAND}: there is no keys file ${file}; \`${COMMAND} create --role read --file ${file}\` makes one.`);
    return 1;
  }
  for (const k of readKeysFile(file)) print(`${k.id}  ${k.role.padEnd(5)}  ${k.tenant ?? '-'}  ${k.created_at}`);
  return 0;
}
