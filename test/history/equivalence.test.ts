import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { METRIC_FIELDS } from '../../src/contract/metrics.js';
import { NAMED_RANGES } from '../../src/domain/dates.js';
import { startSimulator, type Simulator } from '../../src/simulator/index.js';
import { formatDay, parseIsoDay } from '../../src/util/utc-date.js';
import { comparable, storedHarness, type StoredHarness } from '../helpers/history.js';
import { harness, type Harness, type ToolAnswer } from '../helpers/mcp.js';
import { addDays, NOW, TODAY, YESTERDAY } from '../helpers/sim.js';

/**
 * Every analytics tool, called through MCP on seeded-random arguments twice: once by a server whose client
 * has a synced history store, once by one without (the live path), against the same simulator. The
 * structured answers must be identical but for where and when they were fetched. Replay a failure with
 * EQUIVALENCE_SEED=<seed>.
 */
const SEED = Number(process.env.EQUIVALENCE_SEED ?? Math.floor(Math.random() * 2 ** 31));
const HISTORY_DAYS = 100;
const HISTORY_MONTHS = 24;
/** The simulator's and the clients' clock: NOW, or another instant on the same day (e.g. before the refresh hour). */
const AT = process.env.EQUIVALENCE_NOW ?? NOW;
/** The store's engine: SQLite, or PostgreSQL with EQUIVALENCE_STORE=postgres. */
const ENGINE = process.env.EQUIVALENCE_STORE === 'postgres' ? 'postgres' : 'sqlite';

/** mulberry32: a small seeded generator, so that a failing run can be replayed. */
function generator(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (lo: number, hi: number) => lo + Math.floor(next() * (hi - lo + 1));
  const pick = <T>(list: readonly T[]): T => list[int(0, list.length - 1)]!;
  const some = <T>(list: readonly T[], max: number): T[] => {
    const n = int(1, Math.min(max, list.length));
    return [...new Set(Array.from({ length: n }, () => pick(list)))];
  };
  const chance = (p: number) => next() < p;
  return { int, pick, some, chance };
}

type Rng = ReturnType<typeof generator>;
type Args = Record<string, unknown>;

const monthStart = (offset: number) => {
  const d = new Date(Date.parse(`${TODAY}T00:00:00Z`));
  return new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() - offset, 1)).toISOString().slice(0, 10);
};
const monthEnd = (start: string) => {
  const d = new Date(Date.parse(`${start}T00:00:00Z`));
  return new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 0)).toISOString().slice(0, 10);
};

/** The complete calendar quarters within the upstream's two years, on NOW's day. */
const QUARTERS = ['2025-01-01', '2025-04-01', '2025-07-01', '2025-10-01', '2026-01-01', '2026-04-01', '2026-07-01'];

/** A range: named, explicit 1–90 days inside and partly outside the stored days, a whole month, or a quarter. */
function range(rng: Rng, credit = false): Args {
  const last = credit && rng.chance(0.3) ? TODAY : YESTERDAY;
  switch (rng.int(0, 4)) {
    case 0:
      return { range: rng.pick(NAMED_RANGES) };
    case 1:
    case 2: {
      const length = rng.int(1, 90);
      const end = addDays(last, -rng.int(0, 180));
      return { start_date: addDays(end, 1 - length), end_date: end };
    }
    case 3: {
      const start = monthStart(rng.int(1, 23));
      return { start_date: start, end_date: monthEnd(start) };
    }
    default: {
      const start = rng.pick(QUARTERS);
      return { start_date: start, end_date: monthEnd(addDays(start, 62)) };
    }
  }
}

function compareTo(rng: Rng, args: Args): Args {
  if (rng.chance(0.5)) return args;
  const to = rng.pick(['previous_period', 'previous_year', 'explicit'] as const);
  if (to !== 'explicit') return { ...args, compare_to: to };
  const end = addDays(YESTERDAY, -rng.int(0, 200));
  return { ...args, compare_to: { start_date: addDays(end, 1 - rng.int(1, 60)), end_date: end } };
}

interface Known {
  users: string[];
  products: string[];
  resources: string[];
  experts: string[];
}

/** Shapes every run covers, whatever the seed: long ranges, months and days mixed, today, orders that tie. */
function fixed(known: Known): Array<[string, Args]> {
  const account = known.users.find((u) => !u.includes('@'));
  const email = known.users.find((u) => u.includes('@'))!;
  const twoYears = { start_date: '2024-12-01', end_date: YESTERDAY };
  return [
    ['get_user_activity', { ...twoYears, limit: 1000 }],
    ['get_user_activity', { range: 'year_to_date', compare_to: 'previous_year', limit: 1000 }],
    ['get_active_user_counts', { range: 'last_90_days', compare_to: 'previous_period' }],
    ['get_daily_usage', { range: 'year_to_date' }],
    ['get_credit_usage', { range: 'last_30_days', by_date: true, by_model: true, sort_by: 'user', limit: 1000 }],
    ['get_credit_usage', { range: 'previous_month', by_date: true, sort_by: 'user', order: 'asc', limit: 1000 }],
    [
      'get_credit_usage',
      { start_date: addDays(TODAY, -6), end_date: TODAY, by_date: true, by_model: true, limit: 1000 },
    ],
    ['get_credit_usage', { ...twoYears, by_model: true, limit: 1000 }],
    [
      'get_cost_analytics',
      { range: 'last_90_days', granularity: 'day', group_by: ['user'], sort_by: 'date', limit: 1000 },
    ],
    ['get_cost_analytics', { ...twoYears, group_by: ['product', 'resource', 'byok_status'], limit: 1000 }],
    ['get_cost_analytics', { range: 'year_to_date', compare_to: 'previous_period' }],
    [
      'get_cost_analytics',
      { range: 'last_30_days', group_by: ['user'], filters: { user_emails: [email.toUpperCase()] } },
    ],
    ...(account
      ? ([
          [
            'get_cost_analytics',
            { range: 'previous_month', group_by: ['user'], filters: { service_account_names: [account] } },
          ],
          ['get_user_profile', { user: account, range: 'previous_month' }],
        ] as Array<[string, Args]>)
      : []),
    ['get_usage_overview', { range: 'last_90_days' }],
    ['get_usage_overview', { range: 'year_to_date' }],
    ['list_active_users', { page_size: 10 }],
    ['get_editor_language_activity', { page_size: 50, group_by: 'language' }],
  ];
}

const optional = (rng: Rng, p: number, value: () => Args): Args => (rng.chance(p) ? value() : {});

/** The cases, drawn once the simulator's people, products and models are known. */
function cases(seed: number, known: Known): Array<[string, Args]> {
  const rng = generator(seed);
  const metrics = () => ({ metrics: rng.some(METRIC_FIELDS, 4) });
  const users = () => ({ users: rng.some(known.users, 5) });
  const list = () => ({ limit: rng.pick([1, 5, 25, 1000]), order: rng.pick(['asc', 'desc']) });
  const day = () => ({ date: addDays(YESTERDAY, -rng.int(0, 130)) });
  const out: Array<[string, Args]> = fixed(known);
  const add = (tool: string, n: number, make: () => Args) => {
    for (let i = 0; i < n; i++) out.push([tool, make()]);
  };
  add('get_active_user_counts', 8, () => compareTo(rng, range(rng)));
  add('get_daily_usage', 8, () => compareTo(rng, { ...range(rng), ...optional(rng, 0.5, metrics) }));
  add('get_user_activity', 12, () =>
    compareTo(rng, {
      ...range(rng),
      ...optional(rng, 0.4, metrics),
      ...optional(rng, 0.3, users),
      sort_by: rng.pick(['active_days', 'total_messages', 'total_tool_calls', 'chat_messages']),
      ...list(),
    }),
  );
  add('get_credit_usage', 14, () =>
    compareTo(rng, {
      ...range(rng, true),
      by_date: rng.chance(0.5),
      by_model: rng.chance(0.5),
      ...optional(rng, 0.3, users),
      sort_by: rng.pick(['credits_consumed', 'date', 'user']),
      ...list(),
    }),
  );
  add('get_cost_analytics', 16, () => {
    const filters = {
      ...optional(rng, 0.3, () => ({
        user_emails: rng.some(
          known.users.filter((u) => u.includes('@')),
          4,
        ),
      })),
      ...optional(rng, 0.2, () => ({ product_names: rng.some(known.products, 2) })),
      ...optional(rng, 0.2, () => ({ resource_names: rng.some(known.resources, 3) })),
      ...optional(rng, 0.1, () => ({ expert_ids: rng.some(known.experts, 2) })),
    };
    return compareTo(rng, {
      ...range(rng),
      ...optional(rng, 0.7, () => ({
        group_by: rng.some(['product', 'resource', 'user', 'byok_status', 'expert'], 3),
      })),
      granularity: rng.pick(['total', 'day']),
      ...(Object.keys(filters).length ? { filters } : {}),
      sort_by: rng.pick(['billed_amount_usd', 'credits_consumed', 'input_tokens', 'date']),
      ...list(),
    });
  });
  add('list_active_users', 5, () => ({ ...day(), ...optional(rng, 0.3, users), ...list() }));
  add('get_editor_language_activity', 6, () => ({
    ...day(),
    ...optional(rng, 0.7, () => ({ group_by: rng.pick(['editor', 'language', 'editor_language', 'user']) })),
    ...optional(rng, 0.4, metrics),
    ...optional(rng, 0.3, users),
    sort_by: rng.pick(['users', 'total_messages']),
    ...list(),
  }));
  add('get_usage_overview', 6, () => (rng.chance(0.2) ? {} : range(rng)));
  add('get_user_profile', 6, () => ({ user: rng.pick(known.users), ...(rng.chance(0.2) ? {} : range(rng)) }));
  add('get_budget_status', 3, () => ({ ...optional(rng, 0.4, users), limit: rng.pick([5, 25, 1000]) }));
  add('get_budget_overrides', 1, () => ({}));
  return out;
}

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

/** The stored datasets a tool's answer is read from, by its arguments (see src/history/serving.ts). */
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
    sim = await startSimulator({ users: 300, now: AT, rateLimit: false, token: 'rw', readToken: 'ro' });
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
    drawn = cases(SEED, {
      users: distinct(people.structured.rows.map((r: any) => r.user)),
      products: distinct(cost.structured.rows.map((r: any) => r.product)),
      resources: distinct(cost.structured.rows.map((r: any) => r.resource)),
      experts: distinct(cost.structured.rows.map((r: any) => r.expert_id)),
    });
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
