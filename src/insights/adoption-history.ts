import type { DayRange } from '../domain/dates.js';
import { combineFreshness, type Freshness } from '../domain/freshness.js';
import type { Digest } from '../upstream/history-port.js';
import { dau } from '../upstream/endpoints/dau.js';
import { userActivity } from '../upstream/endpoints/user-activity.js';
import { listAll } from '../upstream/listing/list-all.js';
import type { StoreReader } from './digest-sums.js';
import { periodOf, type ActivePeriod, type AdoptionGranularity } from './adoption-periods.js';
import { People, union, type Bits } from './people-bits.js';

/** Days before the latest complete one where the store's daily lists may end (a sync not run yet today). */
const SLACK = 3;
/** Sets kept per client at most (a day's at 50,000 people is 6 KB): about two years of days and months. */
const KEPT = 1000;

interface Held {
  bits: Bits;
  freshness: Freshness;
}

/**
 * Per client: one numbering of people, and the sets already read from the store whose days can no longer
 * change (older than the last two published days, which the sync fetches again): a repeated question reads
 * only the newest days.
 */
const memos = new WeakMap<object, { people: People; sets: Map<string, Held> }>();

function memoOf(ctx: StoreReader) {
  let memo = memos.get(ctx.client);
  if (!memo) memos.set(ctx.client, (memo = { people: new People(), sets: new Map() }));
  return memo;
}

/** The numbering of people behind the sets read for a client: each bit's email. */
export const peopleOf = (ctx: StoreReader) => memoOf(ctx).people;

async function read(
  ctx: StoreReader,
  key: string,
  lastDay: number,
  list: () => Promise<{ data: ReadonlyArray<{ user_email?: string }>; freshness: Freshness }>,
  freshness: Freshness[],
  stored?: Held,
): Promise<Bits> {
  const memo = memoOf(ctx);
  let held = memo.sets.get(key);
  if (!held) {
    const answer = stored ? undefined : await list();
    held = stored ?? { bits: memo.people.bitsOf(answer!.data), freshness: answer!.freshness };
    const source = stored ? 'history' : answer!.freshness.source;
    if (source === 'history' && lastDay <= ctx.client.days().published - 2) {
      if (memo.sets.size >= KEPT) memo.sets.clear();
      // Kept without its next refresh: final days are not fetched again, and the time would pass.
      memo.sets.set(key, { ...held, freshness: { ...held.freshness, next_refresh_at: null } });
    }
  }
  freshness.push(held.freshness);
  return held.bits;
}

/** Digests as sets of people, one set per list of digests: store numbers not known yet are named first. */
async function digestBits(ctx: StoreReader, sets: ReadonlyArray<readonly Digest[]>): Promise<Bits[]> {
  const { people } = memoOf(ctx);
  const unknown = new Set<number>();
  for (const set of sets) for (const d of set) for (const id of people.unknown(d.ids)) unknown.add(id);
  if (unknown.size) for (const [id, name] of await ctx.digests.names(unknown)) people.name(id, name);
  return sets.map((set) => people.bitsOfNumbers(set.map((d) => d.ids)));
}

/** The people active in `days`: the store's digests of user activity (a stored month is one), else one range query. */
export async function activeInRange(ctx: StoreReader, days: DayRange, freshness: Freshness[]): Promise<Bits> {
  const key = `range:${days.start}:${days.end}`;
  let stored: Held | undefined;
  if (!memoOf(ctx).sets.has(key)) {
    const digests = await ctx.digests.digests('active', days);
    if (digests?.length)
      stored = {
        bits: (await digestBits(ctx, [digests]))[0]!,
        freshness: combineFreshness(digests.map((d) => d.freshness)),
      };
  }
  return read(ctx, key, days.end, () => listAll(ctx, userActivity, { days }), freshness, stored);
}

/** The daily active lists of the days not read yet, from the store's digests: by day, or none. */
async function storedDays(ctx: StoreReader, days: number[]): Promise<Map<number, Held>> {
  const missing = days.filter((d) => !memoOf(ctx).sets.has(`day:${d}`));
  if (missing.length === 0) return new Map();
  const digests = await ctx.digests.digests('dau', { start: Math.min(...missing), end: Math.max(...missing) }, true);
  if (!digests) return new Map();
  const bits = await digestBits(
    ctx,
    digests.map((d) => [d]),
  );
  return new Map(digests.map((d, i) => [d.days.start, { bits: bits[i]!, freshness: d.freshness }]));
}

/** The people active on each day of `days`: the daily active lists, smaller rows than user activity's. */
export async function activeByDay(ctx: StoreReader, days: DayRange, freshness: Freshness[]): Promise<Bits[]> {
  const out: Bits[] = [];
  // A week at a time: a few listings in flight, each with its own listener on the call's signal.
  for (let start = days.start; start <= days.end; start += 7) {
    const batch: Array<Promise<Bits>> = [];
    const week: number[] = [];
    for (let d = start; d <= Math.min(days.end, start + 6); d++) week.push(d);
    const stored = await storedDays(ctx, week);
    for (const d of week) {
      const one = { start: d, end: d };
      batch.push(read(ctx, `day:${d}`, d, () => listAll(ctx, dau, { days: one }), freshness, stored.get(d)));
    }
    out.push(...(await Promise.all(batch)));
  }
  return out;
}

/** Whether the store holds the daily active list of a day; a list already read from it counts. */
export async function heldDay(ctx: StoreReader, d: number): Promise<boolean> {
  return memoOf(ctx).sets.has(`day:${d}`) || ctx.client.stored(dau, { days: { start: d, end: d } });
}

/**
 * The first day of the stored history a granularity is counted from, or null when the store holds none.
 * Weeks: the earliest day of the store's unbroken run of daily active lists that ends near the latest
 * complete day (found by halving). Months: the first calendar month stored whole (a month block, or every
 * day of it), from the store's earliest day on.
 */
export async function historyStart(ctx: StoreReader, granularity: AdoptionGranularity): Promise<number | null> {
  const { storedFrom, published } = ctx.client.days();
  if (storedFrom === undefined) return null;
  if (granularity === 'month') {
    let month = periodOf(storedFrom, 'month');
    if (month.start < storedFrom) month = periodOf(month.end + 1, 'month');
    for (; month.start <= published; month = periodOf(month.end + 1, 'month')) {
      const days = { start: month.start, end: Math.min(month.end, published) };
      if (memoOf(ctx).sets.has(`range:${days.start}:${days.end}`)) return month.start;
      if (await ctx.client.stored(userActivity, { days })) return month.start;
    }
    return null;
  }
  let top: number | undefined;
  for (let d = published; d >= published - SLACK && d >= storedFrom && top === undefined; d--)
    if (await heldDay(ctx, d)) top = d;
  return top === undefined ? null : runStart(ctx, storedFrom, top);
}

/** The earliest day of the unbroken run of stored daily active lists that ends on `top` (held), from `lo` on. */
async function runStart(ctx: StoreReader, lo: number, top: number): Promise<number> {
  let hi = top;
  while (lo < hi) {
    const mid = Math.floor((lo + hi) / 2);
    if (await heldDay(ctx, mid)) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/**
 * The people active in the stored days just before `from` (the first period counted): the unbroken run of
 * daily active lists that ends the day before, down to the store's first day. Undefined when there is none.
 */
export async function seenBefore(
  ctx: StoreReader,
  from: number,
  freshness: Freshness[],
): Promise<{ first: number; people: Bits } | undefined> {
  const { storedFrom } = ctx.client.days();
  if (storedFrom === undefined || storedFrom >= from || !(await heldDay(ctx, from - 1))) return undefined;
  const first = await runStart(ctx, storedFrom, from - 1);
  return { first, people: union(await activeByDay(ctx, { start: first, end: from - 1 }, freshness)) };
}

/**
 * The people active in each period, over its days within [from, published]: the union of its daily active
 * lists when `byDay` says so, else one range query of user activity. From the store one period at a time;
 * live (`byDay` null) all at once, so that walks that outlast the answer go on together in the background.
 */
export async function activePeriods(
  ctx: StoreReader,
  periods: DayRange[],
  from: number,
  published: number,
  byDay: ((period: DayRange, days: DayRange) => Promise<boolean>) | null,
  freshness: Freshness[],
): Promise<ActivePeriod[]> {
  const spans = periods.map((period) => ({
    period,
    days: { start: Math.max(period.start, from), end: Math.min(period.end, published) },
  }));
  if (!byDay)
    return Promise.all(spans.map(async (s) => ({ ...s, active: await activeInRange(ctx, s.days, freshness) })));
  const out: ActivePeriod[] = [];
  for (const { period, days } of spans) {
    const active = (await byDay(period, days))
      ? union(await activeByDay(ctx, days, freshness))
      : await activeInRange(ctx, days, freshness);
    out.push({ period, days, active });
  }
  return out;
}
