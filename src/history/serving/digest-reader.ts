import { LRUCache } from 'lru-cache';
import type { DayRange } from '../../domain/dates.js';
import { nextDailyRefresh } from '../../domain/freshness.js';
import type { Digest, DigestName, DigestPort } from '../../upstream/history-port.js';
import { datasetById } from '../store/datasets.js';
import { digestId } from '../store/block-ids.js';
import { digestSources, readDigest } from '../store/derived/digests.js';
import type { HistoryStore } from '../store/history-store.js';
import type { Days } from '../../domain/published-days.js';

type Body = NonNullable<Awaited<ReturnType<typeof readDigest>>>;

/**
 * Parsed digests kept in memory, up to about this many bytes (8 per number held). A grouped question over 90 days
 * at 50,000 people reads some 90 digests of tens of thousands of numbers: parsing them again was a third of its
 * time. They are kept by block and `fetched_at`, and all forgotten when this process writes to the store (a block
 * fetched again may keep its `fetched_at`: that of its oldest page).
 */
const CACHE_BYTES = 192 * 1024 * 1024;

/** The gaps of [start, end] that the blocks (sorted, disjoint) leave. */
export function gaps(start: number, end: number, blocks: ReadonlyArray<{ start: number; end: number }>): DayRange[] {
  const out: DayRange[] = [];
  let next = start;
  for (const b of blocks) {
    if (b.start > next) out.push({ start: next, end: b.start - 1 });
    next = Math.max(next, b.end + 1);
  }
  if (next <= end) out.push({ start: next, end });
  return out;
}

/** The store's digests as the tools read them (DigestPort): the fewest blocks that cover the days, months first. */
export class DigestReader implements DigestPort {
  private readonly bodies = new LRUCache<string, Body>({
    maxSize: CACHE_BYTES,
    sizeCalculation: (b) => 8 * (b.ids.length + b.v.length + (b.credits?.v.length ?? 0)) + 256,
  });

  private writes = 0;

  constructor(
    private readonly store: HistoryStore,
    private readonly options: { now: () => number; days: () => Days },
    private readonly fail: (error: Error) => void,
  ) {}

  async digests(name: DigestName, days: DayRange, byDay?: boolean): Promise<Digest[] | null> {
    try {
      return await this.read(name, days, byDay);
    } catch (error) {
      this.fail(error as Error);
      return null;
    }
  }

  names(ids: Iterable<number>) {
    return this.store.people.namesOf(this.store.db, ids);
  }

  lastId() {
    return this.store.people.lastId(this.store.db);
  }

  private async read(name: DigestName, { start, end }: DayRange, byDay = false): Promise<Digest[] | null> {
    if (this.writes !== this.store.writes) {
      this.bodies.clear();
      this.writes = this.store.writes;
    }
    const now = this.options.now();
    const chosen: Array<{
      dataset: string;
      start: number;
      end: number;
      fetched_at: string;
      expires_at: number | null;
    }> = [];
    // Expired blocks too (today's credit usage after 90 minutes, say): what the last sync stored, said by freshness.
    for (const dataset of digestSources(name).filter((id) => !byDay || datasetById(id).grain === 'day'))
      for (const b of await this.store.blocks(digestId(dataset), start, end)) {
        const inside = b.start >= start && b.end <= end;
        if (inside && !chosen.some((c) => b.start <= c.end && b.end >= c.start)) chosen.push({ ...b, dataset });
      }
    chosen.sort((a, b) => a.start - b.start);
    if (gaps(start, end, chosen).length > 0) return null;
    const daily = nextDailyRefresh(now, this.options.days().refreshHour);
    const out: Digest[] = [];
    for (const c of chosen) {
      const key = `${c.dataset}\u0000${c.start}\u0000${c.end}\u0000${c.fetched_at}`;
      let body = this.bodies.get(key);
      if (!body) {
        body = await readDigest(this.store.db, c.dataset, c.start, c.end);
        if (!body) return null;
        this.bodies.set(key, body);
      }
      out.push({
        days: { start: c.start, end: c.end },
        ...body,
        freshness: {
          fetched_at: c.fetched_at,
          from_cache: false,
          source: 'history',
          next_refresh_at: new Date(Math.min(daily, Math.max(now, c.expires_at ?? daily))).toISOString(),
        },
      });
    }
    return out;
  }
}
