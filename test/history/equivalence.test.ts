import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../src/simulator/index.js';
import { formatDay, parseIsoDay } from '../../src/util/utc-date.js';
import { comparable, storedHarness, type StoredHarness } from '../helpers/history.js';
import { harness, type Harness, type ToolAnswer } from '../helpers/mcp.js';
import { NOW, TODAY, YESTERDAY } from '../helpers/sim.js';
import { cases, type Args } from './equivalence-cases.js';

/**
 * Every analytics tool, called through MCP on seeded-random arguments twice: once by a server whose client
 * has a synced history store, once by one without (the live path), against the same simulator. The
 * structured answers must be identical but for where and when they were fetched. Replay a failure with
 * EQUIVALENCE_SEED=<seed>; ask more random questions with EQUIVALENCE_SCALE=<n> (1: the full set; a run
 * draws a third of it, new ones each run, and always the fixed cases).
 */
const SEED = Number(process.env.EQUIVALENCE_SEED ?? Math.floor(Math.random() * 2 ** 31));
const SCALE = Number(process.env.EQUIVALENCE_SCALE ?? 1 / 3);
const HISTORY_DAYS = 100;
const HISTORY_MONTHS = 24;
/** The simulator's and the clients' clock: NOW, or another instant on the same day (e.g. before the refresh hour). */
const AT = process.env.EQUIVALENCE_NOW ?? NOW;
/** The store's engine: SQLite, or PostgreSQL with EQUIVALENCE_STORE=postgres. */
const ENGINE = process.env.EQUIVALENCE_STORE === 'postgres' ? 'postgres' : 'sqlite';

type Blocks = Map<string, Array<{ start: number; end: number }>>;

/**
 * Whether every day of [start, end] lies in a stored block of one of the datasets that lies wholly inside
 * the range: a month answers a range that holds all of it, a day any range that holds it.
 */
function coveredBy(
  blocks: Map<string, Array<{ start: number; end: number }>>,
  ids: string[],
  start: string,
  end: string,
) {
  const [s, e] = [parseIsoDay(start)!, parseIsoDay(end)!];
  const held = ids.flatMap((id) => blocks.get(id) ?? []).filter((b) => b.start >= s && b.end <= e);
  for (let d = s; d <= e; d++) if (!held.some((b) => b.start <= d && d <= b.end)) return false;
  return true;
}

/** The stored datasets a tool's answer is read from, by its arguments (see src/history/serving/serving.ts). */
function datasetsOf(tool: string, args: Args): string[] | undefined {
  // One raw upstream page (cursor, page_size) is the upstream's own: always live.
  if (args.cursor !== undefined || args.page_size !== undefined) return undefined;
  switch (tool) {
    case 'get_active_user_counts':
      return ['dau-count'];
    case 'get_daily_usage':
      return ['daily-usage'];
    case 'get_user_activity':
      return ['user-activity', 'user-activity-months'];
    case 'get_credit_usage':
      return args.by_date ? ['credits-by-date-model'] : ['credits-by-date-model', 'credits-by-model-months'];
    case 'get_cost_analytics':
      return args.granularity === 'day' ? ['cost-by-day'] : ['cost-by-day', 'cost-total-months'];
    case 'list_active_users':
      return ['dau'];
    case 'get_editor_language_activity':
      return ['editor-language'];
    default:
      return undefined;
  }
}

/**
 * Whether the store holds every day an answer reads: 'all' (no request at all), 'overrides' (the budget
 * overrides are read in real time, the rest from the store), or false.
 */
function heldByStore(blocks: Blocks, tool: string, args: Args, out: any): 'all' | 'overrides' | false {
  const cost = ['cost-by-day', 'cost-total-months'];
  const held = (ids: string[], [s, e]: [string, string]) => coveredBy(blocks, ids, s, e);
  const period: [string, string] = [out.start_date, out.end_date];
  switch (tool) {
    case 'get_usage_overview':
      return held(['dau-count'], period) &&
        held(['user-activity', 'user-activity-months'], period) &&
        held(cost, period) &&
        (out.previous === null || held(cost, [out.previous.start_date, out.previous.end_date])) &&
        held(['editor-language'], [out.editors.date, out.editors.date])
        ? 'all'
        : false;
    case 'get_user_profile':
      // Its days and this month's (the budget) per day: activity, active lists, credits, cost, the day's records.
      return ['user-activity', 'dau', 'credits-by-date-model', 'cost-by-day'].every(
        (id) => held([id], period) && held([id], [`${TODAY.slice(0, 8)}01`, YESTERDAY]),
      ) &&
        (out.uses === null || held(['editor-language'], [out.uses.date, out.uses.date]))
        ? 'overrides'
        : false;
    case 'get_budget_status':
      return 'overrides';
    default: {
      const ids = datasetsOf(tool, args);
      return ids !== undefined && periodsOf(out).every((p) => held(ids, p)) ? 'all' : false;
    }
  }
}

/** The periods a range tool's answer covers: its own and the one it is compared with. */
function periodsOf(out: any): Array<[string, string]> {
  if (typeof out.date === 'string') return [[out.date, out.date]];
  const own: [string, string] = [out.start_date, out.end_date];
  return out.comparison ? [own, [out.comparison.start_date, out.comparison.end_date]] : [own];
}

describe(`every analytics tool answers from the history store (${ENGINE}) as it does live (seed ${SEED})`, () => {
  let sim: Simulator;
  let stored: StoredHarness;
  let live: Harness;
  let blocks: Blocks;
  let drawn: Array<[string, Args]> = [];

  beforeAll(async () => {
    console.log(`equivalence seed ${SEED} (replay: EQUIVALENCE_SEED=${SEED})`);
    sim = await startSimulator({ users: 200, now: AT, rateLimit: false, token: 'rw', readToken: 'ro' });
    const started = Date.now();
    stored = await storedHarness(
      { historyDays: HISTORY_DAYS, historyMonths: HISTORY_MONTHS, engine: ENGINE },
      { simulator: sim },
    );
    console.log(
      `sync: ${stored.synced.blocks} blocks, ${stored.synced.requests} requests, ${Date.now() - started} ms`,
      stored.synced.byGroup,
    );
    live = await harness({ simulator: sim });
    blocks = new Map();
    for (const b of await stored.history.source.store.db.selectFrom('history_blocks').selectAll().execute()) {
      const list = blocks.get(b.dataset) ?? [];
      list.push({ start: Number(b.start_day), end: Number(b.end_day) });
      blocks.set(b.dataset, list);
    }
    const people = await live.call('get_user_activity', { range: 'last_90_days', limit: 1000 });
    const cost = await live.call('get_cost_analytics', {
      range: 'last_90_days',
      group_by: ['product', 'resource', 'expert'],
      limit: 1000,
    });
    const distinct = (values: unknown[]) => [...new Set(values.filter((v): v is string => typeof v === 'string'))];
    drawn = cases(
      SEED,
      {
        users: distinct(people.structured.rows.map((r: any) => r.user)),
        products: distinct(cost.structured.rows.map((r: any) => r.product)),
        resources: distinct(cost.structured.rows.map((r: any) => r.resource)),
        experts: distinct(cost.structured.rows.map((r: any) => r.expert_id)),
      },
      SCALE,
    );
  }, 240_000);
  afterAll(async () => {
    await stored?.close();
    await live?.close();
    await sim?.close();
  });

  it('stored the days and the months', () => {
    expect(blocks.get('user-activity')?.length).toBe(HISTORY_DAYS);
    const published = stored.upstream.days().published;
    const first = formatDay(published + 1 - HISTORY_DAYS);
    expect(coveredBy(blocks, ['user-activity'], first, formatDay(published))).toBe(true);
    expect(blocks.get('user-activity-months')?.length).toBeGreaterThanOrEqual(20);
  });

  it('answers each drawn question alike, from the store whenever it holds every day', async () => {
    const mismatches: string[] = [];
    let fromHistory = 0;
    for (const plan of [undefined, 'credits', 'usd'] as const) {
      for (const [tool, args] of drawn) {
        if (plan === undefined ? tool === 'get_budget_status' : tool !== 'get_budget_status') continue;
        if (plan) sim.setPlan(plan);
        const label = `${tool} ${JSON.stringify(args)}${plan ? ` (plan ${plan})` : ''}`;
        const before = sim.requests().length;
        const a: ToolAnswer = await stored.call(tool, args);
        const sent = sim.requests().slice(before);
        const b: ToolAnswer = await live.call(tool, args);
        if (a.isError !== b.isError || (a.isError && a.text !== b.text)) {
          mismatches.push(
            `${label}: stored ${a.isError ? `error ${a.text}` : 'ok'}, live ${b.isError ? `error ${b.text}` : 'ok'}`,
          );
          continue;
        }
        if (a.isError) continue;
        try {
          expect(comparable(a.structured)).toEqual(comparable(b.structured));
        } catch (error) {
          mismatches.push(`${label}: ${(error as Error).message.slice(0, 3000)}`);
          continue;
        }
        const held = heldByStore(blocks, tool, args, a.structured);
        if (held === 'all') {
          fromHistory++;
          if (a.structured.freshness.source !== 'history' || sent.length !== 0)
            mismatches.push(
              `${label}: held by the store, yet source ${a.structured.freshness.source}, ${sent.length} requests`,
            );
        } else if (held === 'overrides') {
          fromHistory++;
          const other = sent.filter((r) => !r.path.endsWith('overrides')).map((r) => r.path);
          if (other.length)
            mismatches.push(`${label}: held by the store but the overrides, yet asked ${other.join(', ')}`);
        }
      }
    }
    console.log(`equivalence: ${drawn.length} questions, ${fromHistory} wholly from the store`);
    expect(mismatches).toEqual([]);
    expect(fromHistory).toBeGreaterThan(0);
  }, 300_000);
});
