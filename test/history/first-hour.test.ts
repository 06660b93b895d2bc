import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RATE_LIMITS, type RateGroup } from '../../src/contract/limits.js';
import { resolveNamedRange } from '../../src/domain/dates.js';
import { RANGES } from '../../src/history/store/range-blocks.js';
import { attachHistory, type RuntimeHistory } from '../../src/history/serving/runtime-history.js';
import { syncOnce } from '../../src/history/sync/sync-run.js';
import { createLogger } from '../../src/logger.js';
import { startSimulator, type Simulator } from '../../src/simulator/index.js';
import { comparable } from '../helpers/history.js';
import { harness, type Harness, type ToolAnswer } from '../helpers/mcp.js';
import { NOW } from '../helpers/sim.js';

/**
 * A new install's first sync, against a simulator that enforces the documented limits 10 times faster (and a
 * client that knows the same limits): the questions asked most are asked the moment the sync says they answer
 * from the store, while it goes on with the days, and must answer from the store exactly as a server without one.
 */
const SCALE = 10;
const RANGES_ASKED = ['last_7_days', 'last_30_days', 'last_90_days'] as const;
const QUESTIONS: Array<[string, Record<string, unknown>]> = [
  ...RANGES_ASKED.flatMap((range): Array<[string, Record<string, unknown>]> => [
    ['get_user_activity', { range, limit: 1000 }],
    ['get_credit_usage', { range, limit: 1000 }],
    ['get_cost_analytics', { range, group_by: ['user'], limit: 1000 }],
  ]),
  ['get_active_user_counts', { range: 'last_90_days' }],
  // Read from the same blocks: cost in all.
  ['get_cost_analytics', { range: 'last_30_days' }],
];

describe('a new install answers the questions asked most from the store once the range blocks are in', () => {
  let sim: Simulator;
  let stored: Harness;
  let history: RuntimeHistory;
  let dir: string;
  const lines: string[] = [];
  const answers: ToolAnswer[] = [];
  const MIXED: Array<[string, Record<string, unknown>]> = [];
  const mixed: ToolAnswer[] = [];
  /** The requests of user activity made while they were asked (the sync's days among them). */
  const mixedAsked: ReturnType<Simulator['requests']> = [];
  /** Days of each dataset the store held when the questions were asked. */
  const daysHeld = new Map<string, number>();
  let outcome: Awaited<ReturnType<typeof syncOnce>>;
  /** The first person the user activity of the last 7 days names. */
  const firstPerson = () =>
    String(answers[0]!.structured.rows.find((r: { user?: string }) => r.user?.includes('@')).user);

  beforeAll(async () => {
    sim = await startSimulator({ users: 150, now: NOW, rateLimit: true, timeScale: SCALE, token: 'rw' });
    const scaled = (g: RateGroup) => ({ perMinute: RATE_LIMITS[g].perMinute * SCALE, burst: RATE_LIMITS[g].burst });
    stored = await harness({
      simulator: sim,
      client: {
        limits: {
          general: scaled('general'),
          'credit-usage': scaled('credit-usage'),
          'cost-analytics': scaled('cost-analytics'),
        },
      },
    });
    dir = mkdtempSync(join(tmpdir(), 'first-hour-'));
    const log = createLogger(
      'error',
      (t) => t,
      () => {},
    );
    const file = join(dir, 'h.sqlite');
    history = (await attachHistory(stored.upstream, { history: file, cacheDir: undefined, demo: false }, log))!;
    const stop = new AbortController();
    let asked: Promise<void> | undefined;
    const ask = async () => {
      const store = history.source.store;
      for (const id of ['user-activity', 'credits-by-date-model', 'cost-by-day'])
        daysHeld.set(id, (await store.blocks(id, 0, 1e7)).filter((b) => b.start === b.end).length);
      for (const [tool, args] of QUESTIONS) answers.push(await stored.call(tool, args));
      // One person's cost, from the cost by user of the last 7 days.
      QUESTIONS.push(['get_cost_analytics', { range: 'last_7_days', filters: { user_emails: [firstPerson()] } }]);
      answers.push(await stored.call(...QUESTIONS.at(-1)!));
      // A day more than a range block: the block, and the day before it asked live, merged.
      const { published, today } = stored.upstream.days();
      const iso = (d: number) => new Date(d * 86_400_000).toISOString().slice(0, 10);
      const daysBefore = (end: number) => ({ start_date: iso(end - 30), end_date: iso(end), limit: 1000 });
      MIXED.push(
        ['get_user_activity', daysBefore(published)],
        ['get_credit_usage', daysBefore(today)],
        ['get_cost_analytics', { ...daysBefore(published), group_by: ['user'] }],
      );
      const before = sim.requests().length;
      for (const [tool, args] of MIXED) mixed.push(await stored.call(tool, args));
      mixedAsked.push(
        ...sim
          .requests()
          .slice(before)
          .filter((r) => r.path.endsWith('/user-activity')),
      );
      stop.abort();
    };
    // The default settings: 90 days, 24 months, 0.8 of each rate for the days.
    outcome = await syncOnce(
      stored.upstream,
      history.source,
      { historyDays: 90, historyMonths: 24, syncShare: 0.8 },
      {
        signal: stop.signal,
        onProgress: (line) => {
          lines.push(line.text);
          if (line.answerable) asked = ask();
        },
      },
    );
    await asked;
    sim.configure({ rate_limit: false });
  }, 60_000);
  afterAll(async () => {
    await history?.close();
    await stored?.close();
    await sim?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('says on its progress line when they became answerable, before the days were in', () => {
    const line = lines.find((l) => l.includes('answer from the store now'));
    expect(line).toMatch(
      /^sync: user activity, credits and cost by user over the last 7, 30 and 90 days, and the daily active user counts, answer from the store now \(after \d+(\.\d+)? (s|min), \d+ requests\); the days follow, newest first$/,
    );
    expect(outcome.ran && outcome.result.answerableMs).toBeGreaterThan(0);
    // The days of 90 are far from in: the range blocks answered.
    for (const [id, held] of daysHeld) expect(held, id).toBeLessThan(90);
  });

  it('fetched each window as one range request (with its pages) before any day of its group', () => {
    const days = stored.upstream.days();
    const requests = sim.requests().filter((r) => r.path.startsWith('/analytics/'));
    for (const dataset of RANGES) {
      const own = requests.filter((r) => r.path.endsWith(dataset.listing.name));
      const dates = (r: (typeof own)[number]) => {
        const q = { ...(r.query ?? {}), ...((r.body ?? {}) as Record<string, unknown>) };
        return `${String(q.start_date)}..${String(q.end_date)}`;
      };
      const windows = RANGES_ASKED.map((name) => resolveNamedRange(name, dataset.listing.dates.rules, days));
      const wanted = windows.map((w) => {
        const iso = (d: number) => new Date(d * 86_400_000).toISOString().slice(0, 10);
        return `${iso(w.start)}..${iso(w.end)}`;
      });
      // Its group's first requests are the three windows, shortest first, each one request and its pages.
      const firstOfEach = wanted.map((w) => own.findIndex((r) => dates(r) === w));
      expect(
        firstOfEach.every((i) => i >= 0),
        dataset.id,
      ).toBe(true);
      expect(
        [...firstOfEach].sort((a, b) => a - b),
        dataset.id,
      ).toEqual(firstOfEach);
    }
  });

  it('answers each of them from the store (freshness.source history), equal to a server without a store; a day more too', async () => {
    expect(answers).toHaveLength(QUESTIONS.length);
    const live = await harness({ simulator: sim });
    try {
      for (const [i, [tool, args]] of QUESTIONS.entries()) {
        const label = `${tool} ${JSON.stringify(args)}`;
        const a = answers[i]!;
        expect(a.isError, `${label}: ${a.text}`).toBe(false);
        expect(a.structured.freshness.source, label).toBe('history');
        const b = await live.call(tool, args);
        expect(b.structured.freshness.source, label).toBe('live');
        expect(comparable(a.structured), label).toEqual(comparable(b.structured));
      }
      expect(mixed).toHaveLength(3);
      // User activity: only the day before the block was asked, never the 30 days again (the sync asks single days).
      const { published } = stored.upstream.days();
      const dayBefore = new Date((published - 30) * 86_400_000).toISOString().slice(0, 10);
      expect(mixedAsked.some((r) => r.query.start_date === dayBefore && r.query.end_date === dayBefore)).toBe(true);
      expect(mixedAsked.filter((r) => r.query.start_date !== r.query.end_date)).toEqual([]);
      for (const [i, [tool, args]] of MIXED.entries()) {
        const label = `${tool} ${JSON.stringify(args)}`;
        expect(mixed[i]!.isError, `${label}: ${mixed[i]!.text}`).toBe(false);
        expect(comparable(mixed[i]!.structured), label).toEqual(comparable((await live.call(tool, args)).structured));
      }
    } finally {
      await live.close();
    }
  });
});
