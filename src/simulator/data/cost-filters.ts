import { EXPERTS, PRODUCTS } from './catalog.js';
import type { CostItem } from './cost-items.js';
import { resourceName } from './cost-groups.js';
import { invalidArgument } from '../http/errors.js';
import { isPlainObject, rejectUnknownFields, stringArrayOf } from '../http/params.js';
import type { SimState } from '../state.js';

const FILTER_FIELDS = [
  'user_emails',
  'service_account_names',
  'product_names',
  'resource_names',
  'expert_ids',
] as const;
/** The filters of a cost-analytics request, by field: the values an item must match (emails lowercased). */
export type Filters = Partial<Record<(typeof FILTER_FIELDS)[number], Set<string>>>;

export function parseFilters(raw: unknown): Filters {
  if (raw === undefined) return {};
  if (!isPlainObject(raw)) throw invalidArgument('filters must be an object.');
  rejectUnknownFields(raw, FILTER_FIELDS, 'filters');
  const filters: Filters = {};
  for (const field of FILTER_FIELDS) {
    const values = stringArrayOf(raw[field], `filters.${field}`);
    if (field === 'user_emails') {
      const bad = values?.find((v) => !/^[^@\s]+@[^@\s]+$/.test(v));
      if (bad !== undefined)
        throw invalidArgument(`filters.user_emails contains '${bad}', which is not an email address.`);
    }
    // An empty list filters nothing, like an absent one.
    if (values && values.length > 0)
      filters[field] = new Set(field === 'user_emails' ? values.map((v) => v.toLowerCase()) : values);
  }
  return filters;
}

/** Whether an item passes every filter; an identity filter lets no former member's or bot's item through. */
export function itemMatcher(state: SimState, filters: Filters): (item: CostItem) => boolean {
  const org = state.org;
  const today = state.today();
  const identityFilter = filters.user_emails || filters.service_account_names;
  return (item) => {
    if (identityFilter) {
      const identity = org.identities[item.owner];
      if (!identity || identity.leaveDay <= today) return false;
      const hit =
        identity.kind === 'user'
          ? filters.user_emails?.has(identity.id.toLowerCase())
          : filters.service_account_names?.has(identity.id);
      if (!hit) return false;
    }
    if (filters.product_names && !filters.product_names.has(PRODUCTS[item.product]!)) return false;
    if (filters.resource_names && !filters.resource_names.has(resourceName(item.resource))) return false;
    if (filters.expert_ids && (item.expert < 0 || !filters.expert_ids.has(EXPERTS[item.expert]!.id))) return false;
    return true;
  };
}
