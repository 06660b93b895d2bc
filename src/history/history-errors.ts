/** The store cannot be used (newer schema, unreachable database, damaged file): the server answers live instead. */
export class HistoryUnusable extends Error {
  override readonly name = 'HistoryUnusable';
}
