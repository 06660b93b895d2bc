import { BYOK_STATUS, GRANULARITIES, GROUP_BY_KEYS, RESOURCE_TYPE, USER_TYPE, type GroupByKey } from '../../contract/enums.js';
import { formatDay } from '../../util/utc-date.js';
import { BOTS, COMPUTE_RESOURCE, EXPERTS, MODELS, PRODUCTS } from '../catalog.js';
import { COMPUTE_RESOURCE_INDEX, costItemsOfDay, type CostItem } from '../cost-items.js';
import { resolveCostRange } from '../dates.js';
import { invalidArgument } from '../errors.js';
import { decodeCursor, fingerprint, pageOf } from '../pagination.js';
import { bodyObject, enumOf, isPlainObject, pageSizeOf, rejectUnknownFields, stringArrayOf } from '../params.js';
import { decimalString } from '../render.js';
import type { EndpointContext, SimState } from '../state.js';

const FILTER_FIELDS = ['user_emails', 'service_account_names', 'product_names', 'resource_names', 'expert_ids'] as const;
type Filters = Partial<Record<(typeof FILTER_FIELDS)[number], Set<string>>>;

function parseFilters(raw: unknown): Filters {
  if (raw === undefined) return {};
  if (!isPlainObject(raw)) throw invalidArgument('filters must be an object.');
  rejectUnknownFields(raw, FILTER_FIELDS, 'filters');
  const filters: Filters = {};
  for (const field of FILTER_FIELDS) {
    const values = stringArrayOf(raw[field], `filters.${field}`);
    if (field === 'user_emails') {
      const bad = values?.find((v) => !/^[^@\s]+@[^@\s]+$/.test(v));
      if (bad !== undefined) throw invalidArgument(`filters.user_emails contains '${bad}', which is not an email address.`);
    }
    // An empty list filters nothing, like an absent one.
    if (values && values.length > 0) filters[field] = new Set(field === 'user_emails' ? values.map((v) => v.toLowerCase()) : values);
  }
  return filters;
}

type Radixes = ReturnType<typeof radixes>;

/**
 * Group-key radixes: each dimension's index is also its sort rank, so numeric key order is the output
 * order. A dimension that is not grouped has radix 1, which keeps keys small (and fast to index).
 */
function radixes(state: SimState, groupBy: Set<GroupByKey>) {
  const r = (key: GroupByKey, size: number) => (groupBy.has(key) ? size : 1);
  const owner = state.org.identities.length + BOTS.length + 1;
  const R = {
    product: r('COST_ANALYTICS_GROUP_BY_PRODUCT', PRODUCTS.length),
    resource: r('COST_ANALYTICS_GROUP_BY_RESOURCE', MODELS.length + 1),
    owner: r('COST_ANALYTICS_GROUP_BY_USER', owner),
    byok: r('COST_ANALYTICS_GROUP_BY_BYOK_STATUS', 2),
    expert: r('COST_ANALYTICS_GROUP_BY_EXPERT', EXPERTS.length + 1),
    deletedOwner: owner - 1,
  };
  return { ...R, perDay: R.product * R.resource * R.owner * R.byok * R.expert };
}

/** Maps group keys to row numbers: a flat array when the key space is small enough, a Map otherwise. */
class RowIndex {
  private readonly dense: Int32Array | undefined;
  private readonly sparse = new Map<number, number>();
  readonly keys: number[] = [];

  constructor(keySpace: number) {
    this.dense = keySpace <= 16_000_000 ? new Int32Array(keySpace).fill(-1) : undefined;
  }

  rowOf(key: number): number {
    let row = this.dense ? this.dense[key]! : (this.sparse.get(key) ?? -1);
    if (row < 0) {
      row = this.keys.length;
      this.keys.push(key);
      if (this.dense) this.dense[key] = row;
      else this.sparse.set(key, row);
    }
    return row;
  }
}

/** Sums per group in one flat array (COLUMNS per group), in the order the groups were first seen. */
interface Aggregate {
  /** Group keys in ascending (output) order, with their rows in `sums`. */
  keys: Float64Array;
  rows: Int32Array;
  sums: Float64Array;
  giant: Map<number, bigint>;
}

const COLUMNS = 9;

class GrowableSums {
  data = new Float64Array(COLUMNS * 1024);
  rows = 0;
  add(): number {
    if ((this.rows + 1) * COLUMNS > this.data.length) {
      const bigger = new Float64Array(this.data.length * 2);
      bigger.set(this.data);
      this.data = bigger;
    }
    return this.rows++;
  }
}

function aggregate(state: SimState, start: number, end: number, groupBy: Set<GroupByKey>, byDay: boolean, filters: Filters): Aggregate {
  const org = state.org;
  const today = state.today();
  const R = radixes(state, groupBy);
  const index = new RowIndex((byDay ? end - start + 2 : 1) * R.perDay);
  const sums = new GrowableSums();
  const giant = new Map<number, bigint>();
  const identityFilter = filters.user_emails || filters.service_account_names;
  const filtered = Object.keys(filters).length > 0;
  const [byProduct, byResource, byUser, byByok, byExpert] = GROUP_BY_KEYS.map((k) => groupBy.has(k));

  const ownerRank = (owner: number) => (owner < org.identities.length && org.identities[owner]!.leaveDay <= today ? R.deletedOwner : owner);
  const matches = (item: CostItem) => {
    if (identityFilter) {
      const identity = org.identities[item.owner];
      if (!identity || identity.leaveDay <= today) return false;
      const hit = identity.kind === 'user' ? filters.user_emails?.has(identity.id.toLowerCase()) : filters.service_account_names?.has(identity.id);
      if (!hit) return false;
    }
    if (filters.product_names && !filters.product_names.has(PRODUCTS[item.product]!)) return false;
    if (filters.resource_names && !filters.resource_names.has(resourceName(item.resource))) return false;
    if (filters.expert_ids && (item.expert < 0 || !filters.expert_ids.has(EXPERTS[item.expert]!.id))) return false;
    return true;
  };

  for (let d = start; d <= end; d++) {
    costItemsOfDay(org, state.published(d), (item) => {
      if (filtered && !matches(item)) return;
      let key = byDay ? d - start + 1 : 0;
      key = key * R.product + (byProduct ? item.product : 0);
      key = key * R.resource + (byResource ? item.resource : 0);
      key = key * R.owner + (byUser ? ownerRank(item.owner) : 0);
      key = key * R.byok + (byByok && item.byok ? 1 : 0);
      key = key * R.expert + (byExpert ? item.expert + 1 : 0);
      const row = index.rowOf(key);
      if (row === sums.rows) sums.add();
      const s = sums.data;
      const o = row * COLUMNS;
      s[o]! += item.billedMicros;
      s[o + 1]! += item.estimatedMicros;
      s[o + 2]! += item.baseMicros;
      s[o + 3]! += item.surchargeMicros;
      s[o + 4]! += item.inputTokens;
      s[o + 5]! += item.outputTokens;
      s[o + 6]! += item.cacheReadTokens;
      s[o + 7]! += item.cacheWriteTokens;
      s[o + 8]! += item.creditsCenti;
      if (item.extraCacheRead > 0n) giant.set(key, (giant.get(key) ?? 0n) + item.extraCacheRead);
    });
  }
  const order = Array.from(index.keys.keys()).sort((a, b) => index.keys[a]! - index.keys[b]!);
  return { keys: Float64Array.from(order, (row) => index.keys[row]!), rows: Int32Array.from(order), sums: sums.data, giant };
}

function resourceName(resource: number): string {
  return resource === COMPUTE_RESOURCE_INDEX ? COMPUTE_RESOURCE : MODELS[resource]!.name;
}

function groupValues(state: SimState, R: Radixes, key: number, groupBy: Set<GroupByKey>) {
  const expert = key % R.expert;
  key = Math.floor(key / R.expert);
  const byok = key % R.byok;
  key = Math.floor(key / R.byok);
  const owner = key % R.owner;
  key = Math.floor(key / R.owner);
  const resource = key % R.resource;
  key = Math.floor(key / R.resource);
  const product = key % R.product;
  const values: Record<string, unknown> = {};
  if (groupBy.has('COST_ANALYTICS_GROUP_BY_PRODUCT')) values.product_display_name = PRODUCTS[product];
  if (groupBy.has('COST_ANALYTICS_GROUP_BY_BYOK_STATUS')) values.byok_status = byok ? BYOK_STATUS.byok : BYOK_STATUS.nonByok;
  if (groupBy.has('COST_ANALYTICS_GROUP_BY_RESOURCE')) {
    values.resource_display_name = resourceName(resource);
    values.resource_type = resource === COMPUTE_RESOURCE_INDEX ? RESOURCE_TYPE.compute : RESOURCE_TYPE.model;
  }
  if (groupBy.has('COST_ANALYTICS_GROUP_BY_USER')) values.user_info = userInfo(state, owner);
  if (groupBy.has('COST_ANALYTICS_GROUP_BY_EXPERT')) values.expert_info = expert === 0 ? {} : { expert_id: EXPERTS[expert - 1]!.id, name: EXPERTS[expert - 1]!.name };
  return values;
}

/** Deleted accounts keep their user type but carry no identity. */
function userInfo(state: SimState, owner: number) {
  const n = state.org.identities.length;
  if (owner >= n + BOTS.length) return { user_type: USER_TYPE.user };
  if (owner >= n) return { user_type: USER_TYPE.bot, bot_name: BOTS[owner - n] };
  const identity = state.org.identities[owner]!;
  return identity.kind === 'user' ? { user_type: USER_TYPE.user, user_email: identity.id } : { user_type: USER_TYPE.serviceAccount, service_account_name: identity.id };
}

const tokenValue = (sum: number, extra = 0n) => (extra === 0n ? sum : BigInt(sum) + extra);

/** POST /analytics/v0/cost-analytics */
export function costAnalytics(ctx: EndpointContext) {
  const body = bodyObject(ctx.body, ['start_date', 'end_date', 'group_by_keys', 'granularity', 'filters', 'cursor', 'page_size']);
  const state = ctx.state;
  const range = resolveCostRange(body.start_date, body.end_date, state.today());
  const keys = stringArrayOf(body.group_by_keys, 'group_by_keys') ?? [];
  keys.forEach((k, i) => enumOf(k, GROUP_BY_KEYS, `group_by_keys[${i}]`));
  const groupBy = new Set(keys as GroupByKey[]);
  const granularity = enumOf(body.granularity, GRANULARITIES, 'granularity') ?? 'COST_ANALYTICS_TIME_GRANULARITY_TOTAL';
  const filters = parseFilters(body.filters);
  if (body.cursor !== undefined && typeof body.cursor !== 'string') throw invalidArgument('cursor must be a string.');
  const pageSize = pageSizeOf(body.page_size, 'cost-analytics');
  const byDay = granularity === 'COST_ANALYTICS_TIME_GRANULARITY_DAY';
  const fp = fingerprint(['cost', range, [...groupBy].sort(), byDay, Object.entries(filters).map(([k, v]) => [k, [...v].sort()])]);
  const offset = decodeCursor(body.cursor as string | undefined, fp);
  const agg = state.results.get(state.resultKey(fp), () => aggregate(state, range.start, range.end, groupBy, byDay, filters));
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
