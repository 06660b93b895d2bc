import type { DayRange } from '../../domain/dates.js';
import { nextDailyRefresh } from '../../domain/freshness.js';
import type { Days } from '../../domain/published-days.js';
import type { DigestPort, HistoryPort, HistoryRequest as Request, StoredPart } from '../../upstream/history-port.js';
import { datasetsOfRequest, type Dataset } from '../store/datasets.js';
import type { Block, HistoryStore, NewBlock } from '../store/history-store.js';
import { blockExpiry, isWholeMonth, lastStorableDay } from '../store/store-rules.js';
import { sourcesOf, type Source } from './serving.js';
import { rollupSums } from '../store/derived/cost-rollups.js';
import { DigestReader, gaps } from './digest-reader.js';
import { inSpan } from '../../telemetry/spans.js';

type Row = Record<string, unknown>;

export interface SourceOptions {
  now: () => number;
  days: () => Days;
  /** Told once when the store fails a read or a write; the call goes on live. */
  onError?: (error: Error) => void;
}

type Held = Block & { source: Source; order: number };

/** Greedy: each block in turn that lies inside [start, end] and overlaps none chosen before it. */
function greedy(held: readonly Held[], start: number, end: number): Held[] {
  const chosen: Held[] = [];
  for (const b of held)
    if (b.start >= start && b.end <= end && !chosen.some((c) => b.start <= c.end && b.end >= c.start)) chosen.push(b);
  return chosen.sort((a, b) => a.start - b.start);
}

const length = (b: Held) => b.end - b.start;

/**
 * The stored blocks that answer [start, end]: the sources in their order (months before days), each longest
 * first, or the longest blocks whatever their source (a trailing span before the months it spans), whichever
 * leaves fewer days to fetch, then reads fewer blocks.
 */
function bestCover(held: readonly Held[], start: number, end: number): Held[] {
  const bySource = greedy(
    [...held].sort((x, y) => x.order - y.order || length(y) - length(x) || x.start - y.start),
    start,
    end,
  );
  const byLength = greedy(
    [...held].sort((x, y) => length(y) - length(x) || x.order - y.order || x.start - y.start),
    start,
    end,
  );
  const lacking = (c: Held[]) => gaps(start, end, c).reduce((n, g) => n + g.end - g.start + 1, 0);
  const score = (c: Held[]) => [lacking(c), c.length] as const;
  const [a, b] = [score(bySource), score(byLength)];
  return b[0] < a[0] || (b[0] === a[0] && b[1] < a[1]) ? byLength : bySource;
}

/** The history store as the client sees it: stored days answer, live answers of stored shapes fill it. */
export class HistorySource implements HistoryPort {
  private failed = false;
  readonly digest: DigestPort;
  constructor(
    readonly store: HistoryStore,
    private readonly options: SourceOptions,
  ) {
    this.digest = new DigestReader(store, options, (error) => this.fail(error));
  }

  async cover(request: Request, daysOnly = false): Promise<{ parts: StoredPart[]; missing: DayRange[] } | null> {
    const sources = sourcesOf(request.op.name, request.params);
    if (!sources) return null;
    try {
      const what = { 'org_analytics.endpoint': request.op.name };
      return await inSpan('store read', what, () => this.read(request, sources, daysOnly));
    } catch (error) {
      this.fail(error as Error);
      return null;
    }
  }

  private async read(request: Request, sources: Source[], daysOnly: boolean) {
    const { start, end } = request.days;
    const now = this.options.now();
    const held: Held[] = [];
    for (const [order, source] of sources.entries())
      for (const b of await this.store.blocks(source.dataset.id, start, end, now)) held.push({ source, order, ...b });
    const chosen = bestCover(held, start, end);
    if (chosen.length === 0) return null;
    chosen.sort((a, b) => a.start - b.start);
    const missing = gaps(start, end, chosen);
    // Two live holes cost two walks of every person: one walk of the whole range is cheaper.
    if (missing.length > 1) return null;
    const daily = nextDailyRefresh(now, this.options.days().refreshHour);
    const parts: StoredPart[] = [];
    for (const c of chosen) {
      const rows = daysOnly ? [] : await this.store.rows(c.source.dataset.id, c.start, c.end);
      parts.push({
        days: { start: c.start, end: c.end },
        items: daysOnly ? [] : c.source.project(rows),
        freshness: {
          fetched_at: c.fetched_at,
          from_cache: false,
          source: 'history',
          // A block that may still change (today's credit usage, say) is fetched again when it expires.
          next_refresh_at: new Date(Math.min(daily, c.expires_at ?? daily)).toISOString(),
        },
      });
    }
    return { parts, missing };
  }

  storedFrom(): number | undefined {
    return this.store.earliest;
  }

  keep(request: Request, window: DayRange, items: unknown[], fetchedAt: string): void {
    const datasets = datasetsOfRequest(request.op.name, request.params);
    if (datasets.length === 0) return;
    const blocks = datasets.flatMap((d) => this.blocksOf(d, window, items as Row[], fetchedAt));
    if (blocks.length) this.store.put(blocks).catch((error: Error) => this.fail(error));
  }

  /** The blocks a live window holds for a dataset: its published days (or its month, when complete). */
  blocksOf(dataset: Dataset, window: DayRange, items: Row[], fetchedAt: string): NewBlock[] {
    const { spans, spanOf } = this.layout(dataset, window);
    const byStart = new Map(spans.map((s) => [s.start, [] as Row[]]));
    for (const row of items) byStart.get(spanOf(row)?.start ?? Number.NaN)?.push(row);
    return spans.flatMap((span) => {
      const b = { ...this.block(dataset, span, fetchedAt), items: byStart.get(span.start)! };
      // Rollups are written with their block, in the same transaction: one is stored only with the other.
      const sums = rollupSums(dataset.id);
      sums.add(b.items);
      return [b, ...sums.rows().map((r) => ({ ...b, dataset: r.id, items: r.rows }))];
    });
  }

  /**
   * Where a fetch of a window puts its rows page by page as they arrive (staged in the store, one page in
   * memory at a time); `commit` then stores its blocks whole, with their rollups, in one transaction, and
   * says how many it stored.
   */
  stager(dataset: Dataset, window: DayRange) {
    const { spans, spanOf } = this.layout(dataset, window);
    const counts = new Map(spans.map((s) => [s.start, 0]));
    let seq = 0;
    return {
      clear: () => this.store.unstage(dataset.id),
      add: async (items: Row[]) => {
        const rows = items.flatMap((item) => {
          const span = spanOf(item);
          if (!span || !counts.has(span.start)) return [];
          counts.set(span.start, counts.get(span.start)! + 1);
          return [{ ...span, item }];
        });
        await this.store.stage(dataset.id, rows, seq);
        seq += rows.length;
      },
      commit: async (fetchedAt: string) => {
        const blocks = spans.map((span) => ({
          ...this.block(dataset, span, fetchedAt),
          rows: counts.get(span.start)!,
        }));
        await this.store.commit(dataset.id, blocks);
        return blocks.length;
      },
    };
  }

  /** The blocks a window of a dataset makes, and the one a row of it belongs to. */
  private layout(dataset: Dataset, window: DayRange) {
    const days = this.options.days();
    let spans: DayRange[];
    if (dataset.per === 'month') spans = isWholeMonth(window) && window.end <= days.published - 2 ? [window] : [];
    else if (dataset.per === 'range') spans = window.end <= lastStorableDay(dataset, days) ? [window] : [];
    else if (dataset.per === 'day')
      spans = window.start === window.end && window.end <= lastStorableDay(dataset, days) ? [window] : [];
    else {
      spans = [];
      for (let d = window.start; d <= Math.min(window.end, lastStorableDay(dataset, days)); d++)
        spans.push({ start: d, end: d });
    }
    const spanOf = (row: Row): DayRange | undefined => {
      if (dataset.per !== 'window') return spans[0];
      const day = dataset.dayOf!(row);
      return day === undefined ? undefined : { start: day, end: day };
    };
    return { spans, spanOf };
  }

  private block(dataset: Dataset, span: DayRange, fetchedAt: string): Omit<NewBlock, 'items'> {
    return {
      dataset: dataset.id,
      start: span.start,
      end: span.end,
      grain: dataset.grain,
      fetched_at: fetchedAt,
      expires_at: blockExpiry(dataset, span.end, this.options.days(), this.options.now()),
    };
  }

  private fail(error: Error): void {
    if (this.failed) return;
    this.failed = true;
    this.options.onError?.(error);
  }
}
