/** The store cannot be used (newer schema, unreachable database): the server answers live instead. */
export class HistoryUnusable extends Error {
  override readonly name = 'HistoryUnusable';
  constructor(
    message: string,
    /** Whether it may pass (a database not reachable now): the store is tried again later. */
    readonly transient = false,
  ) {
    super(message);
  }
}

const DAMAGED = /SQLITE_(CORRUPT|NOTADB)|malformed|not a database/i;

/**
 * Whether an error from opening a SQLite store says the file itself is damaged: not a database, or malformed
 * (SQLite also finds a file shorter than its header says, truncated, malformed on its first read).
 */
export function isDamaged(error: unknown): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  return DAMAGED.test(`${String(code ?? '')} ${String(message ?? '')}`);
}
