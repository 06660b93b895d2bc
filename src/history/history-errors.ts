/** The store cannot be used (newer schema, unreachable database): the server answers live instead. */
export class HistoryUnusable extends Error {
  override readonly name = 'HistoryUnusable';
}

/** The SQLite file is damaged (not a database, truncated, malformed): it is moved aside and a new one started. */
export class HistoryDamaged extends Error {
  override readonly name = 'HistoryDamaged';
}

const DAMAGED = /SQLITE_(CORRUPT|NOTADB)|malformed|not a database/i;

/** Whether an error from opening a SQLite store says the file itself is damaged. */
export function isDamaged(error: unknown): boolean {
  if (error instanceof HistoryDamaged) return true;
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  return DAMAGED.test(`${String(code ?? '')} ${String(message ?? '')}`);
}
