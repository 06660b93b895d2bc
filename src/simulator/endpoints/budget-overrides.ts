import {
  BUDGET_PERIODS,
  BUDGET_RESOURCES,
  PLAN_RESOURCE,
  type BudgetPeriod,
  type BudgetResource,
} from '../../contract/enums.js';
import { BUDGET_LIMIT_PATTERN, MAX_OVERRIDES_PER_SET } from '../../contract/limits.js';
import { invalidArgument } from '../http/errors.js';
import { findIdentity, type IdentityKind } from '../data/organization.js';
import { bodyObject, enumOf, isPlainObject, rejectUnknownFields, stringArrayOf } from '../http/params.js';
import { identityField } from '../http/render.js';
import { API, type Route } from '../http/route.js';
import type { EndpointContext } from '../state.js';

/** POST /analytics/v0/get-user-budget-overrides */
export function getOverrides(ctx: EndpointContext) {
  const body = bodyObject(ctx.body, ['user_emails', 'service_account_names', 'resource', 'period']);
  const emails = stringArrayOf(body.user_emails, 'user_emails');
  const accounts = stringArrayOf(body.service_account_names, 'service_account_names');
  const resource = enumOf(body.resource, BUDGET_RESOURCES, 'resource');
  const period = enumOf(body.period, BUDGET_PERIODS, 'period');
  const { org, overrides } = ctx.state;
  const today = ctx.state.today();

  let owners: Set<number> | undefined;
  // Empty lists filter nothing, like absent ones.
  if (emails?.length || accounts?.length) {
    owners = new Set();
    const unknown: string[] = [];
    // A former member is known: the read omits their overrides silently, as the spec says, without a 400.
    const lookup = (kind: IdentityKind, id: string) => {
      const owner = findIdentity(org, kind, id);
      if (owner === undefined) unknown.push(id);
      else owners!.add(owner);
    };
    emails?.forEach((e) => lookup('user', e));
    accounts?.forEach((a) => lookup('service_account', a));
    if (unknown.length > 0) {
      throw invalidArgument(
        `Unknown user email or service account name${unknown.length > 1 ? 's' : ''}: ${unknown.join(', ')}.`,
      );
    }
  }
  const list = overrides.read(today, { owners, resource, period }).map((o) => ({
    ...identityField(org, o.owner),
    resource: o.resource,
    period: o.period,
    config: { limit: o.limit },
  }));
  return { overrides: list };
}

interface CheckedEntry {
  index: number;
  kind: IdentityKind;
  id: string;
  resource: BudgetResource;
  period: BudgetPeriod;
  limit: string;
}

/** Structural problems reject the whole request; the spec's value rules become per-entry failures below. */
function checkEntryShape(entry: unknown, index: number): CheckedEntry {
  const at = `overrides[${index}]`;
  if (!isPlainObject(entry)) throw invalidArgument(`${at} must be an object.`);
  rejectUnknownFields(entry, ['user_email', 'service_account_name', 'resource', 'period', 'config'], at);
  const hasEmail = entry.user_email !== undefined;
  const hasAccount = entry.service_account_name !== undefined;
  if (hasEmail === hasAccount)
    throw invalidArgument(`${at} must have exactly one of user_email or service_account_name.`);
  const id = hasEmail ? entry.user_email : entry.service_account_name;
  if (typeof id !== 'string' || id === '')
    throw invalidArgument(`${at}.${hasEmail ? 'user_email' : 'service_account_name'} must be a non-empty string.`);
  const resource = enumOf(entry.resource, BUDGET_RESOURCES, `${at}.resource`);
  const period = enumOf(entry.period, BUDGET_PERIODS, `${at}.period`);
  if (!resource) throw invalidArgument(`${at}.resource is required.`);
  if (!period) throw invalidArgument(`${at}.period is required.`);
  if (!isPlainObject(entry.config)) throw invalidArgument(`${at}.config is required and must be an object.`);
  rejectUnknownFields(entry.config, ['limit'], `${at}.config`);
  if (typeof entry.config.limit !== 'string')
    throw invalidArgument(`${at}.config.limit is required and must be a string.`);
  return { index, kind: hasEmail ? 'user' : 'service_account', id, resource, period, limit: entry.config.limit };
}

/** POST /analytics/v0/set-user-budget-overrides: partial-failure semantics. */
export function setOverrides(ctx: EndpointContext) {
  if (ctx.body === undefined) throw invalidArgument('A request body with an overrides array is required.');
  const body = bodyObject(ctx.body, ['overrides']);
  if (!Array.isArray(body.overrides)) throw invalidArgument('overrides is required and must be an array.');
  const count = body.overrides.length;
  if (count < 1 || count > MAX_OVERRIDES_PER_SET)
    throw invalidArgument(`overrides must have 1 to ${MAX_OVERRIDES_PER_SET} entries, got ${count}.`);
  const entries = body.overrides.map(checkEntryShape);

  const { org, overrides } = ctx.state;
  const today = ctx.state.today();
  const planResource = PLAN_RESOURCE[overrides.plan];
  const owners = entries.map((e) => findIdentity(org, e.kind, e.id));
  const comboCount = new Map<string, number>();
  const comboOf = (e: CheckedEntry, i: number) =>
    `${owners[i] ?? `?${e.kind}:${e.kind === 'user' ? e.id.toLowerCase() : e.id}`}|${e.resource}|${e.period}`;
  entries.forEach((e, i) => comboCount.set(comboOf(e, i), (comboCount.get(comboOf(e, i)) ?? 0) + 1));

  const failures: Array<{ error_message: string } & ({ user_email: string } | { service_account_name: string })> = [];
  entries.forEach((e, i) => {
    const owner = owners[i];
    let problem: string | undefined;
    if (!BUDGET_LIMIT_PATTERN.test(e.limit)) {
      problem = `limit '${e.limit}' is not valid: use a positive integer of at most 18 digits without leading zeros, or an empty string to clear.`;
    } else if (owner === undefined || !overrides.isCurrentMember(owner, today)) {
      problem = `${e.kind === 'user' ? 'user' : 'service account'} '${e.id}' is not a member of this organization.`;
    } else if (e.resource !== planResource) {
      problem = `resource ${e.resource} does not match the organization's billing plan; use ${planResource}.`;
    } else if (comboCount.get(comboOf(e, i))! > 1) {
      problem = `the same identity, resource and period appear ${comboCount.get(comboOf(e, i))} times in this request; none of them was applied.`;
    }
    if (problem) {
      failures.push({
        ...(e.kind === 'user' ? { user_email: e.id } : { service_account_name: e.id }),
        error_message: problem,
      });
    } else {
      overrides.write(owner!, e.resource, e.period, e.limit);
    }
  });
  return { failures };
}

export const routes: Route[] = [
  { path: `${API}get-user-budget-overrides`, method: 'POST', scope: 'read', group: 'general', handle: getOverrides },
  { path: `${API}set-user-budget-overrides`, method: 'POST', scope: 'write', group: 'general', handle: setOverrides },
];
