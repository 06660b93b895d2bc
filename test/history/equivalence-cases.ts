import { METRIC_FIELDS } from '../../src/contract/metrics.js';
import { NAMED_RANGES } from '../../src/domain/dates.js';
import { addDays, TODAY, YESTERDAY } from '../helpers/sim.js';

/** The questions the equivalence test asks both ways: seeded-random arguments of every analytics tool. */

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
export type Args = Record<string, unknown>;

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

export interface Known {
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

/**
 * The cases, drawn once the simulator's people, products and models are known: the fixed ones, then `scale`
 * times the random ones (each tool at least once).
 */
export function cases(seed: number, known: Known, scale = 1): Array<[string, Args]> {
  const rng = generator(seed);
  const metrics = () => ({ metrics: rng.some(METRIC_FIELDS, 4) });
  const users = () => ({ users: rng.some(known.users, 5) });
  const list = () => ({ limit: rng.pick([1, 5, 25, 1000]), order: rng.pick(['asc', 'desc']) });
  const day = () => ({ date: addDays(YESTERDAY, -rng.int(0, 130)) });
  const out: Array<[string, Args]> = fixed(known);
  const add = (tool: string, n: number, make: () => Args) => {
    for (let i = 0; i < Math.max(1, Math.round(n * scale)); i++) out.push([tool, make()]);
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
