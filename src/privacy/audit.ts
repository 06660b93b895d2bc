import { randomBytes } from 'node:crypto';
import { appendFileSync, closeSync, createReadStream, fstatSync, openSync, readSync, statSync } from 'node:fs';
import { createInterface } from 'node:readline';
import type { Pseudonymizer } from './pii.js';

/** One budget change as planned: the limit before ("" cleared, null none) and the limit asked for ("" clears). */
export interface AuditChange {
  identity: string;
  kind: 'user' | 'service_account';
  resource: string;
  period: string;
  before: string | null;
  after: string;
}

export interface AuditRecord extends AuditChange {
  outcome: 'applied' | 'failed' | 'unknown';
  reason?: string;
}

/**
 * A chunk (one request upstream) is recorded twice under one id: its intent before it is sent, its
 * outcome after the answer. The sink is synchronous: once it returns the lines are written, and when it
 * throws the intent is not on record, so the chunk must not be sent.
 */
export type AuditEvent = (
  | { phase: 'intent'; chunk: string; changes: AuditChange[] }
  | { phase: 'outcome'; chunk: string; records: AuditRecord[] }
) & {
  /** Who asked for the change, on a server whose callers authenticate: the token's email or subject, or the key's id. */
  caller?: string;
};
export type AuditSink = (event: AuditEvent) => void;

export const newChunkId = (): string => randomBytes(8).toString('hex');

export const INTENT_EVENT = 'budget_override_intent';
export const OUTCOME_EVENT = 'budget_override';
/** Written by a server that found intents without outcome on start and said so, so that it says so once. */
export const REPORTED_EVENT = 'budget_override_unfinished';

/**
 * JSON lines to stderr always, and appended to a file (0600) when --audit-log is given. time, event and
 * chunk come first in every line: the start-up scan reads only that head. Emails are pseudonymised in
 * pseudonymous mode.
 */
export function createAuditSink(
  pii: Pseudonymizer,
  path?: string,
  stderr: (text: string) => void = (t) => process.stderr.write(t),
): AuditSink {
  let firstWrite = true;
  return (event) => {
    const rows: AuditChange[] = event.phase === 'intent' ? event.changes : event.records;
    if (rows.length === 0) return;
    const time = new Date().toISOString();
    const name = event.phase === 'intent' ? INTENT_EVENT : OUTCOME_EVENT;
    // Reasons can quote emails (upstream messages do): the whole record goes through the pseudonymizer.
    const text = rows
      .map(
        (r) =>
          `${JSON.stringify(pii.value({ time, event: name, chunk: event.chunk, ...(event.caller ? { caller: event.caller } : {}), ...r, identity: r.kind === 'user' ? pii.email(r.identity) : r.identity }))}\n`,
      )
      .join('');
    // The file first: when it cannot be written the caller does not send, and stderr must not say it did.
    if (path) {
      // A run killed mid-line leaves the file without its final newline; the next line must not be glued to it.
      const prefix = firstWrite && !endsWithNewline(path) ? '\n' : '';
      appendFileSync(path, prefix + text, { encoding: 'utf8', mode: 0o600 });
      firstWrite = false;
    }
    stderr(text);
  };
}

function endsWithNewline(path: string): boolean {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return true;
  }
  try {
    const size = fstatSync(fd).size;
    if (size === 0) return true;
    const last = Buffer.alloc(1);
    readSync(fd, last, 0, 1, size - 1);
    return last[0] === 0x0a;
  } finally {
    closeSync(fd);
  }
}

export interface UnfinishedChunk {
  chunk: string;
  /** When its intent was recorded. */
  time: string;
  changes: number;
}

const HEAD = /^\{"time":"([^"]*)","event":"([a-z_]+)","chunks?":(?:"([0-9a-f]+)"|\[([^\]]*)\])/;

/**
 * Chunks whose intent is in the audit log with neither an outcome nor an earlier report: sent by a run
 * that stopped before the answer. Streams the file up to its present end, reading only each line's head.
 */
export async function unfinishedChunks(path: string): Promise<UnfinishedChunk[]> {
  let size: number;
  try {
    size = statSync(path).size;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const open = new Map<string, UnfinishedChunk>();
  if (size === 0) return [];
  const lines = createInterface({ input: createReadStream(path, { end: size - 1 }), crlfDelay: Infinity });
  for await (const line of lines) {
    const head = HEAD.exec(line);
    if (!head) continue;
    const [, time, event, chunk, list] = head;
    if (event === INTENT_EVENT && chunk) {
      const known = open.get(chunk);
      if (known) known.changes++;
      else open.set(chunk, { chunk, time: time!, changes: 1 });
    } else if (event === OUTCOME_EVENT && chunk) open.delete(chunk);
    else if (event === REPORTED_EVENT && list) for (const id of list.match(/[0-9a-f]+/g) ?? []) open.delete(id);
  }
  return [...open.values()];
}

/**
 * On start: says once, in one stderr line, which chunks an earlier run sent without recording their
 * outcome, then notes in the log that it was said, so that the next start stays quiet about them.
 */
export async function reportUnfinishedWrites(
  path: string,
  stderr: (text: string) => void = (t) => process.stderr.write(t),
): Promise<UnfinishedChunk[]> {
  const unfinished = await unfinishedChunks(path);
  if (unfinished.length === 0) return unfinished;
  const shown = unfinished
    .slice(0, 5)
    .map((c) => `chunk ${c.chunk} (${c.changes} change${c.changes > 1 ? 's' : ''}, sent ${c.time})`);
  if (unfinished.length > 5) shown.push(`and ${unfinished.length - 5} more`);
  stderr(
    `org-analytics-mcp: WARNING: the audit log ${path} has ${unfinished.length === 1 ? 'a budget write' : `${unfinished.length} budget writes`} with no recorded outcome: ${shown.join(', ')}. ` +
      'The server stopped before the analytics API answered (or another server writing this log is still waiting), so those changes may or may not have been applied. ' +
      `Check them with get_budget_overrides (the identities are in the ${INTENT_EVENT} lines with that chunk id) and set them again with set_budget_overrides if needed.\n`,
  );
  const note = {
    time: new Date().toISOString(),
    event: REPORTED_EVENT,
    chunks: unfinished.map((c) => c.chunk),
    note: 'found on start without an outcome; reported on stderr',
  };
  appendFileSync(path, `${endsWithNewline(path) ? '' : '\n'}${JSON.stringify(note)}\n`, {
    encoding: 'utf8',
    mode: 0o600,
  });
  return unfinished;
}
