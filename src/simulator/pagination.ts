import { invalidArgument } from './errors.js';
import { mix32, seedFrom } from './random.js';

/** A fingerprint of a query's effective parameters: a cursor only continues the query it came from. */
export function fingerprint(parts: unknown): string {
  const text = JSON.stringify(parts);
  return seedFrom(text).toString(16).padStart(8, '0') + seedFrom(`~${text}`).toString(16).padStart(8, '0');
}

function checksum(fp: string, offset: number): string {
  return mix32(seedFrom(fp) ^ mix32(offset + 0x5bd1e995)).toString(36);
}

export function encodeCursor(fp: string, offset: number): string {
  return Buffer.from(`v1.${fp}.${offset}.${checksum(fp, offset)}`).toString('base64url');
}

/** The offset a cursor points at; a cursor that is malformed, tampered with or from another query is refused. */
export function decodeCursor(cursor: string | undefined, fp: string): number {
  if (cursor === undefined || cursor === '') return 0;
  const parts = Buffer.from(cursor, 'base64url').toString('utf8').split('.');
  const offset = Number(parts[2]);
  if (parts.length !== 4 || parts[0] !== 'v1' || !Number.isSafeInteger(offset) || offset < 0 || parts[3] !== checksum(parts[1]!, offset)) {
    throw invalidArgument('cursor is not valid; pass back the next_cursor of the previous response unchanged, or omit it for the first page.');
  }
  if (parts[1] !== fp) {
    throw invalidArgument('cursor belongs to a different query; repeat the same parameters as the request that returned it.');
  }
  return offset;
}

export interface Page {
  next_cursor: string;
  has_more: boolean;
}

export function pageOf(fp: string, offset: number, pageSize: number, total: number): { from: number; to: number; pagination: Page } {
  const from = Math.min(offset, total);
  const to = Math.min(from + pageSize, total);
  const hasMore = to < total;
  return { from, to, pagination: { next_cursor: hasMore ? encodeCursor(fp, to) : '', has_more: hasMore } };
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
