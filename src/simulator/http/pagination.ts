import { invalidArgument } from './errors.js';
import { mix32, seedFrom } from '../random.js';

/** A fingerprint of a query's effective parameters: a cursor only continues the query it came from. */
export function fingerprint(parts: unknown): string {
  const text = JSON.stringify(parts);
  return seedFrom(text).toString(16).padStart(8, '0') + seedFrom(`~${text}`).toString(16).padStart(8, '0');
}

function checksum(fp: string, offset: number, snapshot: number): string {
  return mix32(seedFrom(fp) ^ mix32(offset + 0x5bd1e995) ^ mix32(snapshot + 0x1b873593)).toString(36);
}

/** A cursor names the query, the offset, and the data snapshot that the first page was served from. */
export function encodeCursor(fp: string, offset: number, snapshot = 0): string {
  return Buffer.from(`v1.${fp}.${offset}.${snapshot}.${checksum(fp, offset, snapshot)}`).toString('base64url');
}

export interface CursorState {
  offset: number;
  /** undefined on the first page: the caller picks the current snapshot. */
  snapshot: number | undefined;
}

/** Where a cursor points; a cursor that is malformed, tampered with or from another query is refused. */
export function decodeCursorState(cursor: string | undefined, fp: string): CursorState {
  if (cursor === undefined || cursor === '') return { offset: 0, snapshot: undefined };
  const parts = Buffer.from(cursor, 'base64url').toString('utf8').split('.');
  const offset = Number(parts[2]);
  const snapshot = Number(parts[3]);
  const wellFormed =
    parts.length === 5 &&
    parts[0] === 'v1' &&
    Number.isSafeInteger(offset) &&
    offset >= 0 &&
    Number.isSafeInteger(snapshot);
  if (!wellFormed || parts[4] !== checksum(parts[1]!, offset, snapshot)) {
    throw invalidArgument(
      'cursor is not valid; pass back the next_cursor of the previous response unchanged, or omit it for the first page.',
    );
  }
  if (parts[1] !== fp) {
    throw invalidArgument(
      'cursor belongs to a different query; repeat the same parameters as the request that returned it.',
    );
  }
  return { offset, snapshot };
}

export function decodeCursor(cursor: string | undefined, fp: string): number {
  return decodeCursorState(cursor, fp).offset;
}

export interface Page {
  next_cursor: string;
  has_more: boolean;
}

export function pageOf(
  fp: string,
  offset: number,
  pageSize: number,
  total: number,
  snapshot = 0,
): { from: number; to: number; pagination: Page } {
  const from = Math.min(offset, total);
  const to = Math.min(from + pageSize, total);
  const hasMore = to < total;
  return { from, to, pagination: { next_cursor: hasMore ? encodeCursor(fp, to, snapshot) : '', has_more: hasMore } };
}

/** Keeps recent full query results so that paging through them does not recompute them. */
export class ResultCache {
  private readonly entries = new Map<string, unknown>();
  constructor(private readonly maxEntries = 16) {}

  get<T>(fp: string, compute: () => T): T {
    if (this.entries.has(fp)) {
      const hit = this.entries.get(fp) as T;
      this.entries.delete(fp);
      this.entries.set(fp, hit);
      return hit;
    }
    const value = compute();
    this.entries.set(fp, value);
    if (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value as string);
    return value;
  }

  clear(): void {
    this.entries.clear();
  }
}
