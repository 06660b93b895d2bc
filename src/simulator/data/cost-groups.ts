import { BYOK_STATUS, RESOURCE_TYPE, USER_TYPE, type GroupByKey } from '../../contract/enums.js';
import { BOTS, COMPUTE_RESOURCE, EXPERTS, MODELS, PRODUCTS } from './catalog.js';
import { COMPUTE_RESOURCE_INDEX } from './cost-items.js';
import type { SimState } from '../state.js';

export type Radixes = ReturnType<typeof radixes>;

/**
 * Group-key radixes: each dimension's index is also its sort rank, so numeric key order is the output
 * order. A dimension that is not grouped has radix 1, which keeps keys small (and fast to index).
 */
export function radixes(state: SimState, groupBy: Set<GroupByKey>) {
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

export function resourceName(resource: number): string {
  return resource === COMPUTE_RESOURCE_INDEX ? COMPUTE_RESOURCE : MODELS[resource]!.name;
}

/** The group_by_values of a group key: the grouped dimensions, decoded from it by the radixes. */
export function groupValues(state: SimState, R: Radixes, key: number, groupBy: Set<GroupByKey>) {
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
  if (groupBy.has('COST_ANALYTICS_GROUP_BY_BYOK_STATUS'))
    values.byok_status = byok ? BYOK_STATUS.byok : BYOK_STATUS.nonByok;
  if (groupBy.has('COST_ANALYTICS_GROUP_BY_RESOURCE')) {
    values.resource_display_name = resourceName(resource);
    values.resource_type = resource === COMPUTE_RESOURCE_INDEX ? RESOURCE_TYPE.compute : RESOURCE_TYPE.model;
  }
  if (groupBy.has('COST_ANALYTICS_GROUP_BY_USER')) values.user_info = userInfo(state, owner);
  if (groupBy.has('COST_ANALYTICS_GROUP_BY_EXPERT'))
    values.expert_info = expert === 0 ? {} : { expert_id: EXPERTS[expert - 1]!.id, name: EXPERTS[expert - 1]!.name };
  return values;
}

/** Deleted accounts keep their user type but carry no identity. */
function userInfo(state: SimState, owner: number) {
  const n = state.org.identities.length;
  if (owner >= n + BOTS.length) return { user_type: USER_TYPE.user };
  if (owner >= n) return { user_type: USER_TYPE.bot, bot_name: BOTS[owner - n] };
  const identity = state.org.identities[owner]!;
  return identity.kind === 'user'
    ? { user_type: USER_TYPE.user, user_email: identity.id }
    : { user_type: USER_TYPE.serviceAccount, service_account_name: identity.id };
}
