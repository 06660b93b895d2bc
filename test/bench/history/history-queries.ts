import { formatDay } from '../../../src/util/utc-date.js';
import type { Listing } from '../../../src/upstream/endpoint.js';
import { costAnalytics } from '../../../src/upstream/endpoints/cost-analytics.js';
import { creditUsageByUser } from '../../../src/upstream/endpoints/credit-usage-by-user.js';
import { dauCount } from '../../../src/upstream/endpoints/dau-count.js';
import { userActivity } from '../../../src/upstream/endpoints/user-activity.js';
import { monthOf } from '../../../src/history/store/store-rules.js';
import type { HistoryRig } from './history-fixture.js';

type Args = Record<string, unknown>;
/** A question as the client is asked it: a label, a listing and its arguments. */
export type Question = [label: string, listing: Listing, args: Args];
export interface QuestionSet {
  name: string;
  /** The goal in ms for this set, as the issue states it. */
  goalMs: number;
  questions: Question[];
}

const BY_USER = { group_by_keys: ['COST_ANALYTICS_GROUP_BY_USER'] };
const BY_RESOURCE = { group_by_keys: ['COST_ANALYTICS_GROUP_BY_RESOURCE'] };
const CANONICAL_RANGES = ['last_7_days', 'last_30_days', 'last_90_days', 'previous_month', 'month_to_date'];

/** The kinds of question the tools ask most, each over a range. */
function kinds(range: Args): Question[] {
  return [
    ['user activity', userActivity, range],
    ['credits by user', creditUsageByUser, range],
    ['cost by user', costAnalytics, { ...range, ...BY_USER }],
    ['cost by resource', costAnalytics, { ...range, ...BY_RESOURCE }],
    ['DAU count', dauCount, range],
  ];
}

const span = (start: number, end: number) => ({ start_date: formatDay(start), end_date: formatDay(end) });

/** A small, seeded generator: the same "random" ranges every run. */
function seeded(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/**
 * The questions of the issue's Measure section. `published`: the latest complete day; `firstMonth`: the
 * first day of the oldest stored month.
 */
export function questionSets(published: number, firstMonth: number, quick: boolean): QuestionSet[] {
  const random = seeded(23);
  const adhoc: Question[] = [];
  const all = kinds({});
  for (let i = 0; i < (quick ? 10 : 20); i++) {
    const length = 1 + Math.floor(random() * 90);
    const end = published - Math.floor(random() * (90 - length + 1));
    const [label, listing] = all[i % all.length]!;
    adhoc.push([`${label}, ${length} days`, listing, span(end - length + 1, end)]);
  }
  const previous = monthOf(monthOf(published).start - 1);
  // The last whole calendar quarter: back from the previous month to a March, June, September or December.
  let quarterLast = previous;
  while (new Date(quarterLast.start * 86_400_000).getUTCMonth() % 3 !== 2) quarterLast = monthOf(quarterLast.start - 1);
  const quarter = { start: monthOf(monthOf(quarterLast.start - 1).start - 1).start, end: quarterLast.end };
  let twelve = previous.start;
  for (let i = 0; i < 11; i++) twelve = monthOf(twelve - 1).start;
  return [
    {
      name: 'canonical questions',
      goalMs: 1000,
      questions: (quick ? ['last_7_days', 'last_30_days', 'previous_month'] : CANONICAL_RANGES).flatMap((range) =>
        kinds({ range }).map(([l, f, a]): Question => [`${l}, ${range}`, f, a]),
      ),
    },
    { name: `${adhoc.length} ad-hoc ranges of 1-90 days`, goalMs: 1000, questions: adhoc },
    {
      name: 'whole months: previous month, a quarter, 12 months',
      goalMs: 2000,
      questions: [
        span(previous.start, previous.end),
        span(quarter.start, quarter.end),
        span(twelve, previous.end),
      ].flatMap((r) => kinds(r).slice(0, quick ? 2 : 4)),
    },
    {
      name: `two years (${formatDay(firstMonth)}..${formatDay(published)})`,
      goalMs: 2000,
      questions: kinds(span(firstMonth, published)).slice(0, quick ? 2 : 4),
    },
  ];
}

export interface Timed {
  set: QuestionSet;
  ms: number[];
  /** Questions that went upstream: the store did not cover them. */
  live: string[];
  /** The slowest answer of each question. */
  each: Map<string, number>;
}

export const quantile = (xs: number[], q: number) => {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!;
};

/** Asks each question `repeat` times through client.list, timing each answer and counting upstream calls. */
export async function timeQuestions(rig: HistoryRig, sets: QuestionSet[], repeat: number): Promise<Timed[]> {
  const out: Timed[] = [];
  for (const set of sets) {
    const timed: Timed = { set, ms: [], live: [], each: new Map() };
    for (const [label, listing, args] of set.questions) {
      for (let i = 0; i < repeat; i++) {
        const before = rig.sim.requests().length;
        const t0 = performance.now();
        const answer = await rig.client.list(listing as never, args as never);
        const ms = performance.now() - t0;
        timed.ms.push(ms);
        timed.each.set(label, Math.max(ms, timed.each.get(label) ?? 0));
        if (rig.sim.requests().length > before || answer.freshness.source !== 'history') {
          if (!timed.live.includes(label)) timed.live.push(label);
        }
      }
    }
    out.push(timed);
  }
  return out;
}

export function printTimed(print: (line: string) => void, where: string, timed: Timed[]): void {
  for (const t of timed) {
    const p50 = quantile(t.ms, 0.5);
    const p99 = quantile(t.ms, 0.99);
    const met = p99 <= t.set.goalMs ? 'met' : 'not met';
    print(
      `    ${where.padEnd(22)} ${t.set.name.padEnd(52)} n=${String(t.ms.length).padStart(3)}  ` +
        `p50 ${p50.toFixed(0).padStart(5)} ms  p99 ${p99.toFixed(0).padStart(5)} ms  ` +
        `(goal p99 <= ${t.set.goalMs} ms: ${met})` +
        (t.live.length ? `; went upstream: ${t.live.join(', ')}` : ''),
    );
    const slowest = [...t.each].sort((a, b) => b[1] - a[1]).slice(0, 3);
    print(`      slowest: ${slowest.map(([label, ms]) => `${label} ${ms.toFixed(0)} ms`).join('; ')}`);
  }
}

/** Questions inside what a short sync stored (`days` days and the previous month), for a store not filled by copying. */
export function syncedSets(published: number, days: number): QuestionSet[] {
  const random = seeded(7);
  const all = kinds({});
  const adhoc: Question[] = [];
  for (let i = 0; i < 10; i++) {
    const length = 1 + Math.floor(random() * days);
    const end = published - Math.floor(random() * (days - length + 1));
    const [label, listing] = all[i % all.length]!;
    adhoc.push([`${label}, ${length} days`, listing, span(end - length + 1, end)]);
  }
  const previous = monthOf(monthOf(published).start - 1);
  return [
    {
      name: `the ${days} synced days: canonical and ad-hoc`,
      goalMs: 1000,
      questions: [...kinds({ range: 'last_7_days' }), ...adhoc],
    },
    {
      name: 'previous month (one stored month)',
      goalMs: 2000,
      questions: kinds(span(previous.start, previous.end)).slice(0, 4),
    },
  ];
}
