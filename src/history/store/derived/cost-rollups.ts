import type { GroupByKey } from '../../../contract/enums.js';
import { addCostMetrics, type CostPoint, type CostQuery } from '../../../upstream/endpoints/cost-analytics.js';
import { ROLLUP_SHAPES, rollupId, type RollupShape } from '../block-ids.js';
import { datasetById, type Dataset } from '../datasets.js';

type Row = Record<string, unknown>;

/** The group_by_values fields each group-by key fills. */
export const KEY_FIELDS: Record<string, string[]> = {
  COST_ANALYTICS_GROUP_BY_PRODUCT: ['product_display_name'],
  COST_ANALYTICS_GROUP_BY_RESOURCE: ['resource_display_name', 'resource_type'],
  COST_ANALYTICS_GROUP_BY_USER: ['user_info'],
  COST_ANALYTICS_GROUP_BY_BYOK_STATUS: ['byok_status'],
  COST_ANALYTICS_GROUP_BY_EXPERT: ['expert_info'],
};

function costFilter(filters: NonNullable<CostQuery['filters']>): (p: CostPoint) => boolean {
  const emails = filters.user_emails?.length ? new Set(filters.user_emails.map((e) => e.toLowerCase())) : undefined;
  const accounts = filters.service_account_names?.length ? new Set(filters.service_account_names) : undefined;
  const sets = (list?: string[]) => (list?.length ? new Set(list) : undefined);
  const products = sets(filters.product_names);
  const resources = sets(filters.resource_names);
  const experts = sets(filters.expert_ids);
  return (p) => {
    const g = p.group_by_values;
    if (emails || accounts) {
      const email = g.user_info?.user_email?.toLowerCase();
      const account = g.user_info?.service_account_name;
      const hit = (email !== undefined && emails?.has(email)) || (account !== undefined && accounts?.has(account));
      if (!hit) return false;
    }
    if (products && !products.has(g.product_display_name ?? '')) return false;
    if (resources && !resources.has(g.resource_display_name ?? '')) return false;
    if (experts && !experts.has(g.expert_info?.expert_id ?? '')) return false;
    return true;
  };
}

/** Cost points of all group-by keys, filtered and summed to the keys (and days) the request asks for. */
export function costProjection(query: CostQuery, byDay: boolean): (rows: Row[]) => Row[] {
  return (rows) => {
    const sums = costSums(query, byDay);
    sums.add(rows);
    return sums.rows();
  };
}

/** The sums of `costProjection`, fed rows a part at a time: the same rows, in the same order, whatever the parts. */
function costSums(query: CostQuery, byDay: boolean) {
  const fields = (query.group_by_keys ?? []).flatMap((k) => KEY_FIELDS[k] ?? []);
  const keep = costFilter(query.filters ?? {});
  const groups = new Map<string, CostPoint>();
  return {
    add(rows: Row[]): void {
      for (const point of rows as unknown as CostPoint[]) {
        if (!keep(point)) continue;
        const values = Object.fromEntries(
          fields.filter((f) => f in point.group_by_values).map((f) => [f, (point.group_by_values as Row)[f]]),
        );
        const key = `${byDay ? point.start_date : ''}|${JSON.stringify(values)}`;
        const seen = groups.get(key);
        groups.set(
          key,
          seen
            ? { ...seen, cost_metrics: addCostMetrics(seen.cost_metrics, point.cost_metrics) }
            : { ...point, group_by_values: values as CostPoint['group_by_values'] },
        );
      }
    },
    rows: (): Row[] => [...groups.values()] as unknown as Row[],
  };
}

/**
 * Cost rolled up when it is stored: per day (and per month) by user, by resource, and in all, summed from the
 * points of every group-by key. The most asked cost questions then read a few rows a day instead of every
 * combination of product, resource, user, key and expert.
 */
export interface Rollup {
  id: string;
  /** The dataset it is summed from, in the same transaction. */
  from: 'cost-by-day' | 'cost-total-months';
  keys: GroupByKey[];
}

/** The group-by keys of each shape (block-ids.ts lists the shapes, smallest first). */
const SHAPES: Record<RollupShape, GroupByKey[]> = {
  total: [],
  resource: ['COST_ANALYTICS_GROUP_BY_RESOURCE'],
  user: ['COST_ANALYTICS_GROUP_BY_USER'],
};

/** Smallest first: the first that holds what a question needs is the one read. */
export const ROLLUPS: readonly Rollup[] = (['cost-by-day', 'cost-total-months'] as const).flatMap((from) =>
  ROLLUP_SHAPES.map((shape) => ({ id: rollupId(from, shape), from, keys: SHAPES[shape] })),
);

const fieldsOf = (keys: readonly string[]) => new Set(keys.flatMap((k) => KEY_FIELDS[k] ?? []));

/** The group_by_values fields a question groups or filters by. */
function neededFields(query: CostQuery): Set<string> {
  const needed = fieldsOf(query.group_by_keys ?? []);
  const f = query.filters ?? {};
  if (f.user_emails?.length || f.service_account_names?.length) needed.add('user_info');
  if (f.resource_names?.length) needed.add('resource_display_name');
  if (f.product_names?.length) needed.add('product_display_name');
  if (f.expert_ids?.length) needed.add('expert_info');
  return needed;
}

/** The rollups of `from` that hold every field the question needs, smallest first. */
export function rollupsFor(query: CostQuery, from: string): Rollup[] {
  const needed = neededFields(query);
  return ROLLUPS.filter((r) => r.from === from && [...needed].every((f) => fieldsOf(r.keys).has(f)));
}

/**
 * Whether a rollup's rows are already the rows the question gets: grouped by the same fields, nothing filtered
 * (a block's rows share one day, or are a month's totals). Its rows then need no projection.
 */
export function answersAsIs(rollup: Rollup, query: CostQuery): boolean {
  const filtered = Object.values(query.filters ?? {}).some((v) =>
    Array.isArray(v) ? v.length > 0 : v !== undefined && v !== null,
  );
  const want = (query.group_by_keys ?? []).flatMap((k) => KEY_FIELDS[k] ?? []);
  const have = rollup.keys.flatMap((k) => KEY_FIELDS[k] ?? []);
  return !filtered && want.length === have.length && want.every((f, i) => f === have[i]);
}

/** A rollup as the store and the cover see it: its parent's dataset under its own id. */
export function rollupDataset(rollup: Rollup): Dataset {
  return { ...datasetById(rollup.from), id: rollup.id };
}

/** Whether a rollup has a row per identity: summed in passes over shares of the identities (see passes.ts). */
export const perIdentity = (rollup: Rollup) => rollup.keys.includes('COST_ANALYTICS_GROUP_BY_USER');

/** The rollups of `dataset` (none for most datasets), those `which` picks, in order. */
export const rollupsOf = (dataset: string, which: (r: Rollup) => boolean = () => true) =>
  ROLLUPS.filter((r) => r.from === dataset && which(r));

/**
 * The rollups of a stored block of `dataset` (those `which` picks), summed from its rows a part at a time. Each
 * row keeps the POSITION of its group's first point (see store-rows.ts).
 */
export function rollupSums(dataset: string, which?: (r: Rollup) => boolean) {
  const byDay = dataset === 'cost-by-day';
  const sums = rollupsOf(dataset, which).map((r) => ({ id: r.id, sums: costSums({ group_by_keys: r.keys }, byDay) }));
  return {
    add: (rows: Row[]) => sums.forEach((s) => s.sums.add(rows)),
    rows: () => sums.map((s) => ({ id: s.id, rows: s.sums.rows() })),
  };
}
