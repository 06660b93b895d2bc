import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveNamedRange, type DayRange } from '../../../../src/domain/dates.js';
import { buildSpans } from '../../../../src/history/store/derived/spans.js';
import { buildTrailingSpans } from '../../../../src/history/sync/trailing-spans.js';
import {
  BATCH,
  POSITION,
  insertRows,
  insertValues,
  readRecords,
  rowValues,
  type Positioned,
} from '../../../../src/history/store/store-rows.js';
import { costAnalytics } from '../../../../src/upstream/endpoints/cost-analytics.js';
import { creditUsageByUser } from '../../../../src/upstream/endpoints/credit-usage-by-user.js';
import { userActivity } from '../../../../src/upstream/endpoints/user-activity.js';
import { storedHarness, type StoredHarness } from '../../../helpers/history.js';

type Row = Record<string, any>;

const who = (r: Row): string => {
  const u = r.group_by_values?.user_info ?? r;
  return u.user_email !== undefined ? `u:${u.user_email.toLowerCase()}` : `s:${u.service_account_name}`;
};

/** A decimal as a fraction over 10^9, exactly (the simulator writes at most 6 decimals). */
const nano = (v: string | number) => {
  const [w = '0', f = ''] = String(v).split('.');
  return BigInt(w + f.padEnd(9, '0'));
};

/** Each identity's (and model's) figures summed by hand: what a span of the rows must hold. */
const SUMS: Record<string, { from: string; key(r: Row): string; values(r: Row): bigint[] }> = {
  'span:user-activity': {
    from: 'user-activity',
    key: who,
    values: (r) => [BigInt(r.active_days), ...Object.values(r.metrics as Record<string, number>).map(BigInt)],
  },
  'span:credits-by-date-model': {
    from: 'credits-by-date-model',
    key: (r) => `${who(r)}|${r.model_name}`,
    values: (r) => [BigInt(r.credits_consumed)],
  },
  'span:user-activity-months': {
    from: 'user-activity-months',
    key: who,
    values: (r) => [BigInt(r.active_days), ...Object.values(r.metrics as Record<string, number>).map(BigInt)],
  },
  'span:credits-by-model-months': {
    from: 'credits-by-model-months',
    key: (r) => `${who(r)}|${r.model_name}`,
    values: (r) => [BigInt(r.credits_consumed)],
  },
  'span:cost-total-months-by-user': {
    from: 'cost-total-months-by-user',
    key: who,
    values: (r) => Object.values(r.cost_metrics as Record<string, string | number>).map(nano),
  },
  'span:cost-by-day-by-user': {
    from: 'cost-by-day-by-user',
    key: who,
    values: (r) => Object.values(r.cost_metrics as Record<string, string | number>).map(nano),
  },
};

function summed(spec: (typeof SUMS)[string], rows: Row[]): Map<string, string> {
  const out = new Map<string, bigint[]>();
  for (const r of rows) {
    const k = spec.key(r);
    const v = spec.values(r);
    const seen = out.get(k);
    out.set(k, seen ? seen.map((x, i) => x + v[i]!) : v);
  }
  return new Map([...out].map(([k, v]) => [k, v.join(',')]));
}

const sorted = (rows: unknown[]) => rows.map((r) => JSON.stringify(r)).sort();

const monthNumber = (day: number) => {
  const d = new Date(day * 86_400_000);
  return d.getUTCFullYear() * 12 + d.getUTCMonth();
};

const DAY = (d: number) => new Date(d * 86_400_000).toISOString().slice(0, 10);

describe.each(['sqlite', 'postgres'] as const)('spans: stored days summed over aligned runs (%s)', (engine) => {
  let stored: StoredHarness;
  beforeAll(async () => {
    // 100 days for the last 90 days whole; the spans' blocks are as many at 20 people as at 60, in a quarter less time.
    stored = await storedHarness({ historyDays: 100, historyMonths: 5, engine }, { sim: { users: 20 } });
  }, 180_000);
  afterAll(async () => {
    await stored?.close();
  });

  it('are built by the sync, aligned, each holding the exact sums of the days or months it runs over', async () => {
    const store = stored.history.source.store;
    const all = await store.db
      .selectFrom('history_blocks')
      .select('dataset')
      .where('dataset', 'like', 'span:%')
      .execute();
    expect(stored.synced.spans).toBe(all.length);
    for (const [id, spec] of Object.entries(SUMS)) {
      const months = id.includes('months');
      // Runs only: the trailing spans are checked below.
      const spans = (await store.blocks(id, 0, 1e6)).filter((b) => b.expires_at === null);
      expect(spans.length, id).toBeGreaterThanOrEqual(months ? 1 : 5);
      const lengths = new Set<number>();
      for (const s of spans) {
        // Its parts, the days or months of the dataset it sums, tile it exactly.
        const parts = await store.blocks(spec.from, s.start, s.end);
        expect(parts[0]!.start, id).toBe(s.start);
        for (const [i, p] of parts.entries()) if (i > 0) expect(p.start, id).toBe(parts[i - 1]!.end + 1);
        expect(parts.at(-1)!.end, id).toBe(s.end);
        const length = months ? parts.length : s.end - s.start + 1;
        lengths.add(length);
        expect(months ? [2, 4, 8, 16] : [2, 4, 8, 16, 32, 64, 128], id).toContain(length);
        expect((months ? monthNumber(s.start) : s.start) % length, id).toBe(0);
        expect(s.expires_at).toBeNull();
        const rows: Row[] = [];
        for (const p of parts) rows.push(...(await store.rows(spec.from, p.start, p.end)));
        expect(summed(spec, await store.rows(id, s.start, s.end)), `${id} ${DAY(s.start)}`).toEqual(summed(spec, rows));
      }
      expect(lengths.size, id).toBeGreaterThanOrEqual(months ? 1 : 3);
    }
  });

  // Before the questions below: one that goes live stores the days it fetched as it passes, dropping spans.
  it('are dropped with a day written again, and built again from the new day', async () => {
    const store = stored.history.source.store;
    const runs = async (id: string) => (await store.blocks(id, 0, 1e6)).filter((b) => b.expires_at === null);
    const spans = await runs('span:user-activity');
    const trailing = (await store.blocks('span:user-activity', 0, 1e6)).filter((b) => b.expires_at !== null);
    const longest = spans.reduce((a, b) => (b.end - b.start > a.end - a.start ? b : a));
    const day = longest.start + 1;
    const [block] = await store.blocks('user-activity', day, day);
    const rows = await store.rows('user-activity', day, day);
    await store.put([{ ...block!, items: rows }]);
    const over = (list: Array<{ start: number; end: number }>) => list.filter((s) => s.start <= day && s.end >= day);
    expect(over(await store.blocks('span:user-activity', 0, 1e6))).toEqual([]);
    expect(over(await runs('span:credits-by-date-model')).length).toBeGreaterThan(0);
    // Each span built is told as it is (the sync's progress lines count them).
    const told: number[] = [];
    const built = await buildSpans(store.db, undefined, (n) => told.push(n));
    expect(built).toBeGreaterThan(0);
    expect(told).toEqual(Array.from({ length: built }, (_, i) => i + 1));
    expect(over(await runs('span:user-activity')).map((s) => s.end - s.start)).toEqual(
      over(spans).map((s) => s.end - s.start),
    );
    expect(await buildSpans(store.db)).toBe(0);
    // The trailing spans over the day too, summed again by the sync that follows.
    const client = stored.upstream;
    expect(await buildTrailingSpans(store, client.days(), client.now())).toBe(over(trailing).length);
    expect(over(trailing).length).toBeGreaterThan(0);
    expect(over(await store.blocks('span:user-activity', 0, 1e6)).length).toBe(
      over(spans).length + over(trailing).length,
    );
  });

  it('answer a range in a few blocks, the same rows as the live path', async () => {
    const client = stored.upstream;
    const published = client.days().published;
    const [oldestMonth] = await stored.history.source.store.blocks('user-activity-months', 0, 1e6);
    // The most blocks each range can take: 34 days of final days are at most a day at each end and two runs
    // of each length between (7 in all, wherever they fall); whole months and more are months, runs of them and
    // days (the last two days read one by one, since they may still change).
    const ranges: Array<[DayRange, number]> = [
      [{ start: published - 36, end: published - 3 }, 7],
      [{ start: oldestMonth!.start, end: published - 1 }, 11],
    ];
    const questions = ranges.flatMap(([days, most]): Array<[unknown, Row, number]> => [
      [userActivity, { days }, most],
      [creditUsageByUser, { days }, most],
      [creditUsageByUser, { days, by_model: true }, most],
      [costAnalytics, { days, group_by_keys: ['COST_ANALYTICS_GROUP_BY_USER'] }, most],
      [costAnalytics, { days, group_by_keys: ['COST_ANALYTICS_GROUP_BY_RESOURCE'] }, most],
      [costAnalytics, { days }, most],
    ]);
    for (const [listing, args, most] of questions) {
      const fromStore = await client.list(listing as never, args as never);
      const live = await client.list(listing as never, args as never, { liveOnly: true, uncached: true });
      expect(fromStore.freshness.source).toBe('history');
      expect(fromStore.windows).toBeLessThanOrEqual(most);
      // The upstream orders a range its own way; the tools sort what they show.
      expect(sorted(fromStore.data)).toEqual(sorted(live.data));
    }
  });

  it('sum the named ranges ending on the latest day whole, each one block until its days change', async () => {
    const client = stored.upstream;
    const store = stored.history.source.store;
    for (const range of ['last_7_days', 'last_30_days', 'last_90_days', 'month_to_date'] as const) {
      for (const [listing, args, id] of [
        [userActivity, { range }, 'span:user-activity'],
        [creditUsageByUser, { range }, 'span:credits-by-date-model'],
        [costAnalytics, { range, group_by_keys: ['COST_ANALYTICS_GROUP_BY_USER'] }, 'span:cost-by-day-by-user'],
      ] as const) {
        const days = resolveNamedRange(range, listing.dates.rules, client.days());
        if (days.end - days.start < 1) continue;
        const [span] = (await store.blocks(id, days.start, days.end)).filter(
          (b) => b.start === days.start && b.end === days.end,
        );
        expect(span, `${id} ${range}`).toBeDefined();
        // It expires with the first of its days that may still be corrected.
        const expiring = (await store.blocks(id.replace('span:', ''), days.start, days.end)).flatMap((b) =>
          b.expires_at === null ? [] : [b.expires_at],
        );
        expect(span!.expires_at).toBe(expiring.length ? Math.min(...expiring) : null);
        const fromStore = await client.list(listing as never, args as never);
        expect(fromStore.windows, `${id} ${range}`).toBe(1);
        const live = await client.list(listing as never, args as never, { liveOnly: true, uncached: true });
        expect(sorted(fromStore.data)).toEqual(sorted(live.data));
      }
    }
  });

  it('keep their records a batch to a stored row, packed, read back whole or a part at a time, in order, each with its place', async () => {
    const store = stored.history.source.store;
    const items = Array.from({ length: BATCH * 2 + 7 }, (_, i) => ({ user_email: `p${i}@x.example`, n: i }));
    const at = { dataset: 'span:test', start: 4, end: 7 };
    await store.db.transaction().execute((tx) => insertRows(tx, at.dataset, at, items, 0));
    const held = await store.db
      .selectFrom('history_rows')
      .select(['seq', 'body'])
      .where('dataset', '=', at.dataset)
      .execute();
    expect(held.length).toBe(3);
    // Each batch names its keys once.
    for (const row of held) expect(row.body.match(/user_email/g)).toHaveLength(1);
    expect(await store.rows(at.dataset, at.start, at.end)).toEqual(items);
    const parts: Positioned[][] = [];
    const next = await readRecords(store.db, at, (rows) => parts.push(rows), { limit: 1, offset: 10 });
    expect(parts.map((p) => p.length)).toEqual([BATCH, BATCH, 7]);
    expect(JSON.parse(JSON.stringify(parts.flat()))).toEqual(items);
    // Each record's place: the block's offset, then its own; the next block's records start after the last batch.
    expect(parts.flat().map((r) => r[POSITION])).toEqual(items.map((_, i) => 10 + i));
    expect(next).toBe(10 + BATCH * 3);
  });

  // Stores written before the packing: blocks of a record a row (with its identity), and spans of 500 plain
  // records a row, joined by commas.
  it.each([
    ['blocks of a record a row', 'user-activity-old', 1],
    ['spans of 500 plain records a row', 'span:older', BATCH],
  ])('read the %s of older stores as they are, whole or a share at a time', async (_, dataset, perRow) => {
    const store = stored.history.source.store;
    const items = Array.from({ length: 1200 }, (_, i) => ({ user_email: `Q${i}@x.example`, n: i }));
    const at = { dataset, start: 9, end: 10 };
    const rows = [];
    for (let i = 0; i < items.length; i += perRow) {
      const row = rowValues(at.dataset, at, perRow > 1 ? {} : items[i], i / perRow);
      if (perRow > 1) row.body = JSON.stringify(items.slice(i, i + perRow)).slice(1, -1);
      rows.push(row);
    }
    await insertValues(store.db, rows);
    expect(await store.rows(at.dataset, at.start, at.end)).toEqual(items);
    const odd = (identity: string | null) => Number(identity!.slice(3).split('@')[0]) % 2 === 1;
    const parts: Positioned[][] = [];
    const next = await readRecords(store.db, at, (got) => parts.push(got), { keep: odd, offset: 5 });
    expect(JSON.parse(JSON.stringify(parts.flat()))).toEqual(items.filter((_, i) => i % 2 === 1));
    expect(parts.flat().map((r) => r[POSITION])).toEqual(items.flatMap((_, i) => (i % 2 ? [5 + i] : [])));
    expect(next).toBe(5 + Math.ceil(items.length / perRow) * perRow);
  });
});
