import { GRANULARITIES, GROUP_BY_KEYS, type GroupByKey } from '../../contract/enums.js';
import { formatDay } from '../../util/utc-date.js';
import { aggregate, COLUMNS } from '../data/cost-aggregate.js';
import { parseFilters } from '../data/cost-filters.js';
import { groupValues, radixes } from '../data/cost-groups.js';
import { resolveCostRange } from '../data/dates.js';
import { invalidArgument } from '../http/errors.js';
import { decodeCursor, fingerprint, pageOf } from '../http/pagination.js';
import { bodyObject, enumOf, pageSizeOf, stringArrayOf } from '../http/params.js';
import { decimalString } from '../http/render.js';
import { API, type Route } from '../http/route.js';
import type { EndpointContext } from '../state.js';

const tokenValue = (sum: number, extra = 0n) => (extra === 0n ? sum : BigInt(sum) + extra);

const PAGES = { default: 100, max: 1000 };

/** POST /analytics/v0/cost-analytics */
export function costAnalytics(ctx: EndpointContext) {
  const body = bodyObject(ctx.body, [
    'start_date',
    'end_date',
    'group_by_keys',
    'granularity',
    'filters',
    'cursor',
    'page_size',
  ]);
  const state = ctx.state;
  const range = resolveCostRange(body.start_date, body.end_date, state.today());
  const keys = stringArrayOf(body.group_by_keys, 'group_by_keys') ?? [];
  keys.forEach((k, i) => enumOf(k, GROUP_BY_KEYS, `group_by_keys[${i}]`));
  const groupBy = new Set(keys as GroupByKey[]);
  const granularity = enumOf(body.granularity, GRANULARITIES, 'granularity') ?? 'COST_ANALYTICS_TIME_GRANULARITY_TOTAL';
  const filters = parseFilters(body.filters);
  if (body.cursor !== undefined && typeof body.cursor !== 'string') throw invalidArgument('cursor must be a string.');
  const pageSize = pageSizeOf(body.page_size, PAGES, 'body');
  const byDay = granularity === 'COST_ANALYTICS_TIME_GRANULARITY_DAY';
  const fp = fingerprint([
    'cost',
    range,
    [...groupBy].sort(),
    byDay,
    Object.entries(filters).map(([k, v]) => [k, [...v].sort()]),
  ]);
  const offset = decodeCursor(body.cursor as string | undefined, fp);
  const agg = state.results.get(state.resultKey(fp), () =>
    aggregate(state, range.start, range.end, groupBy, byDay, filters),
  );
  const { from, to, pagination } = pageOf(fp, offset, pageSize, agg.keys.length);
  const R = radixes(state, groupBy);
  const data_points = Array.from(agg.keys.subarray(from, to), (key, i) => {
    const o = agg.rows[from + i]! * COLUMNS;
    const s = agg.sums.subarray(o, o + COLUMNS);
    const dayOffset = Math.floor(key / R.perDay);
    const [first, last] = byDay ? [range.start + dayOffset - 1, range.start + dayOffset - 1] : [range.start, range.end];
    return {
      start_date: formatDay(first),
      end_date: formatDay(last),
      cost_metrics: {
        billed_amount_usd: decimalString(s[0]!, 6),
        estimated_customer_cost_usd: decimalString(s[1]!, 6),
        base_cost_usd: decimalString(s[2]!, 6),
        surcharge_usd: decimalString(s[3]!, 6),
        input_tokens: s[4]!,
        output_tokens: s[5]!,
        cache_read_tokens: tokenValue(s[6]!, agg.giant.get(key)),
        cache_write_tokens: s[7]!,
        credits_consumed: decimalString(s[8]!, 2),
      },
      group_by_values: groupValues(state, R, key, groupBy),
    };
  });
  return {
    data_points,
    pagination,
    metadata: {
      effective_start_date: formatDay(range.start),
      effective_end_date: formatDay(range.end),
      generated_at: state.generatedAt(),
      returned_data_point_count: data_points.length,
    },
  };
}

export const routes: Route[] = [
  {
    path: `${API}cost-analytics`,
    method: 'POST',
    scope: 'read',
    group: 'cost-analytics',
    pages: PAGES,
    handle: costAnalytics,
  },
];
