import { addCostMetrics, type CostPoint, type CostQuery } from '../upstream/endpoints/cost-analytics.js';
import { datasetById, type Dataset } from './datasets.js';

type Row = Record<string, unknown>;

/** A stored dataset that can answer a request, and how its rows become the rows the request would get. */
export interface Source {
  dataset: Dataset;
  project(rows: Row[]): Row[];
}

const same = (rows: Row[]) => rows;
const without =
  (...fields: string[]) =>
  (rows: Row[]) =>
    rows.map((row) => {
      const out = { ...row };
      for (const f of fields) delete out[f];
      return out;
    });

/** The group_by_values fields each group-by key fills. */
const KEY_FIELDS: Record<string, string[]> = {
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
function costProjection(query: CostQuery, byDay: boolean): (rows: Row[]) => Row[] {
  const fields = (query.group_by_keys ?? []).flatMap((k) => KEY_FIELDS[k] ?? []);
  const keep = costFilter(query.filters ?? {});
  return (rows) => {
    const groups = new Map<string, CostPoint>();
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
    return [...groups.values()] as unknown as Row[];
  };
}

/**
 * The stored datasets that answer a request, months before days: the fewest blocks cover its days.
 * Null when the store keeps nothing that answers it (the request goes live as before).
 */
export function sourcesOf(listingName: string, params: Row): Source[] | null {
  const plain = (id: string): Source => ({ dataset: datasetById(id), project: same });
  switch (listingName) {
    case 'dau-count':
    case 'daily-usage':
    case 'dau':
      return [plain(listingName)];
    case 'daily-user-activity-by-editor-language':
      return [plain('editor-language')];
    case 'user-activity':
      return [plain('user-activity-months'), plain('user-activity')];
    case 'credit-usage-by-user': {
      const model = params.by_model === true ? [] : ['model_name'];
      const days = { dataset: datasetById('credits-by-date-model'), project: without(...model) };
      if (params.by_date === true) return [days];
      return [
        { dataset: datasetById('credits-by-model-months'), project: without(...model) },
        { dataset: days.dataset, project: without('date', ...model) },
      ];
    }
    case 'cost-analytics': {
      const query = params as CostQuery;
      const byDay = query.granularity === 'COST_ANALYTICS_TIME_GRANULARITY_DAY';
      const project = costProjection(query, byDay);
      const days: Source = { dataset: datasetById('cost-by-day'), project };
      return byDay ? [days] : [{ dataset: datasetById('cost-total-months'), project }, days];
    }
    default:
      return null;
  }
}
