import type { CachedAnswer } from '../cache/cache.js';
import { abortError } from '../transport/deadline.js';
import { UpstreamProtocolError } from '../errors.js';
import type { Freshness } from '../../domain/freshness.js';

export interface PageCaps {
  /** Stop after this many pages; the answer is then marked truncated. */
  maxPages: number;
  /** Stop once this many records are in hand; the answer is then marked truncated. */
  maxRecords: number;
}

export const DEFAULT_CAPS: PageCaps = { maxPages: 500, maxRecords: 250_000 };

export interface Progress {
  pages: number;
  records: number;
}

export interface PageOptions {
  caps?: Partial<PageCaps>;
  onProgress?: (progress: Progress) => void;
  signal?: AbortSignal;
}

export interface Paged<T> {
  items: T[];
  pages: number;
  /** True when a cap stopped the walk before the upstream said has_more=false. */
  truncated: boolean;
  freshness: Freshness[];
}

/** What a paged answer carries; an unpaged one has no `pagination` and is its own single page. Every answer has metadata. */
export interface PageShape {
  pagination?: { next_cursor?: string; has_more: boolean };
  metadata: unknown;
}

/**
 * Walks an endpoint's pages by cursor: stops at has_more=false, refuses a repeated cursor (a loop, not
 * progress), honours the caps, and reports progress after each page.
 */
export async function* pages<P extends PageShape>(
  endpoint: string,
  fetchPage: (cursor: string | undefined) => Promise<CachedAnswer<P>>,
  count: (page: P) => number,
  options: PageOptions = {},
): AsyncGenerator<CachedAnswer<P> & { last: boolean; truncated: boolean }> {
  const caps = { ...DEFAULT_CAPS, ...options.caps };
  const seen = new Set<string>();
  let cursor: string | undefined;
  let done = 0;
  let records = 0;
  for (;;) {
    if (options.signal?.aborted) throw abortError(options.signal, endpoint);
    const answer = await fetchPage(cursor);
    done++;
    records += count(answer.value);
    options.onProgress?.({ pages: done, records });
    const { has_more: hasMore, next_cursor: next } = answer.value.pagination ?? { has_more: false };
    if (!hasMore) {
      yield { ...answer, last: true, truncated: false };
      return;
    }
    if (!next) throw new UpstreamProtocolError(`${endpoint} said has_more=true but gave no next_cursor.`, endpoint);
    if (seen.has(next) || next === cursor)
      throw new UpstreamProtocolError(
        `${endpoint} returned a cursor it had already returned; stopped instead of looping.`,
        endpoint,
      );
    const capped = done >= caps.maxPages || records >= caps.maxRecords;
    yield { ...answer, last: capped, truncated: capped };
    if (capped) return;
    seen.add(next);
    cursor = next;
  }
}

/**
 * Every item of every page, with how the walk ended. With `onPage`, each page's items go to it as they
 * arrive and are kept nowhere else (`items` stays empty): a walk of any length then holds one page at a time.
 */
export async function collect<P extends PageShape, T>(
  endpoint: string,
  fetchPage: (cursor: string | undefined) => Promise<CachedAnswer<P>>,
  itemsOf: (page: P) => T[],
  options: PageOptions & { onPage?: (items: T[]) => Promise<void> } = {},
): Promise<Paged<T>> {
  const result: Paged<T> = { items: [], pages: 0, truncated: false, freshness: [] };
  for await (const page of pages(endpoint, fetchPage, (p) => itemsOf(p).length, options)) {
    if (options.onPage) await options.onPage(itemsOf(page.value));
    else result.items.push(...itemsOf(page.value));
    result.pages++;
    result.freshness.push(page.freshness);
    result.truncated = page.truncated;
  }
  return result;
}
