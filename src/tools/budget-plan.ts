import { PLAN_RESOURCE, type BillingPlan, type BudgetResource } from '../contract/enums.js';
import { BUDGET_LIMIT_PATTERN } from '../contract/limits.js';
import { InvalidArgumentError } from '../upstream/errors.js';
import { identityKey } from '../upstream/merge.js';
import type { Override } from '../upstream/schemas.js';
import { fullResource, shortResource } from './budget-common.js';
import { serviceAccountProblem } from './identity-format.js';
import type { ToolContext } from './types.js';

export interface EntryInput {
  user_email?: string;
  service_account_name?: string;
  limit?: string | number | null;
  resource?: 'credits' | 'usd' | BudgetResource;
  period?: 'monthly' | 'BUDGET_PERIOD_MONTHLY';
}

/** Planned statuses, then what applying made of the written ones. */
export type PlanStatus = 'new' | 'changed' | 'cleared' | 'unchanged' | 'invalid' | 'unknown_identity' | 'applied' | 'failed' | 'not_sent' | 'outcome_unknown';

export interface PlannedEntry {
  index: number;
  user: string;
  kind: 'user' | 'service_account';
  resource: BudgetResource | null;
  period: 'BUDGET_PERIOD_MONTHLY';
  /** Current limit: null when there is no override, "" when it is cleared. */
  before: string | null;
  /** Requested limit; "" clears. */
  after: string;
  status: PlanStatus;
  reason?: string;
}

/** The entry's identity as the API names it. */
export function identityRef(p: Pick<PlannedEntry, 'kind' | 'user'>): { user_email: string } | { service_account_name: string } {
  return p.kind === 'user' ? { user_email: p.user } : { service_account_name: p.user };
}

/** Identity key of an entry: emails compared case-insensitively, service-account names exactly. */
export const entryKey = (p: Pick<PlannedEntry, 'kind' | 'user'>) => identityKey(identityRef(p));

/** The limit as the API takes it, or why not. */
export function normalizeLimit(limit: EntryInput['limit']): { limit: string } | { error: string } {
  if (limit === null || limit === '' || limit === undefined) return limit === undefined ? { error: 'limit is required (use null or "" to clear)' } : { limit: '' };
  if (typeof limit === 'number') {
    if (!Number.isSafeInteger(limit)) {
      return { error: Number.isInteger(limit) ? `limit ${limit} is above 2^53-1 and may have lost digits in JSON; send it as a string` : `limit ${limit} is not a whole number` };
    }
    if (limit <= 0) return { error: `limit ${limit} must be positive (use null or "" to clear)` };
    return { limit: String(limit) };
  }
  if (BUDGET_LIMIT_PATTERN.test(limit)) return { limit };
  if (/^0\d/.test(limit)) return { error: `limit '${limit}' has leading zeros` };
  if (/^\d{19,}$/.test(limit)) return { error: `limit '${limit}' has more than 18 digits` };
  if (limit === '0' || /^-/.test(limit)) return { error: `limit '${limit}' must be a positive integer (use null or "" to clear)` };
  return { error: `limit '${limit}' is not a positive integer string (no fractions, exponents, signs or spaces)` };
}

/**
 * Checks every entry before anything is sent, reads the current overrides of the named identities,
 * and classifies each entry: new, changed, cleared, unchanged, invalid or unknown_identity.
 */
export async function planChanges(entries: EntryInput[], plan: BillingPlan | undefined, ctx: ToolContext): Promise<PlannedEntry[]> {
  const planResource = plan ? PLAN_RESOURCE[plan] : undefined;
  const planned: PlannedEntry[] = [];
  for (const [index, e] of entries.entries()) {
    const hasEmail = e.user_email !== undefined && e.user_email !== '';
    const hasAccount = e.service_account_name !== undefined && e.service_account_name !== '';
    const kind = hasEmail ? 'user' : 'service_account';
    const base = { index, kind, user: (hasEmail ? e.user_email : e.service_account_name) ?? '', period: 'BUDGET_PERIOD_MONTHLY' as const, before: null, after: '' } satisfies Partial<PlannedEntry>;
    const invalid = (reason: string, resource: BudgetResource | null = null): PlannedEntry => ({ ...base, resource, status: 'invalid', reason });
    if (hasEmail === hasAccount) {
      planned.push(invalid('give exactly one of user_email or service_account_name'));
      continue;
    }
    const limit = normalizeLimit(e.limit);
    const resource = e.resource ? fullResource(e.resource) : planResource;
    if ('error' in limit) {
      planned.push(invalid(limit.error, resource ?? null));
      continue;
    }
    if (!resource) {
      planned.push(invalid('resource is needed: the billing plan is unknown (pass resource credits or usd, or set ANALYTICS_BILLING_PLAN)'));
      continue;
    }
    if (planResource && resource !== planResource) {
      planned.push(invalid(`resource ${shortResource(resource)} does not match the billing plan (${plan}); use ${shortResource(planResource)}`, resource));
      continue;
    }
    let user = base.user;
    const malformedAccount = hasAccount ? serviceAccountProblem(user) : undefined;
    if (malformedAccount) {
      planned.push(invalid(malformedAccount, resource));
      continue;
    }
    if (hasEmail) {
      try {
        user = await ctx.resolveEmail(user);
      } catch (error) {
        planned.push(invalid((error as Error).message, resource));
        continue;
      }
    }
    planned.push({ ...base, user, resource, after: limit.limit, status: 'unchanged' });
  }

  // The same (identity, resource, period) twice in one request is refused by the API: refuse every occurrence here.
  const comboKey = (p: PlannedEntry) => `${entryKey(p)}|${p.resource}|${p.period}`;
  const counts = new Map<string, number>();
  for (const p of planned) if (p.status !== 'invalid') counts.set(comboKey(p), (counts.get(comboKey(p)) ?? 0) + 1);
  for (const p of planned) {
    const n = counts.get(comboKey(p)) ?? 0;
    if (p.status !== 'invalid' && n > 1) Object.assign(p, { status: 'invalid', reason: `the same identity, resource and period appear ${n} times; give each once` });
  }

  const candidates = planned.filter((p) => p.status !== 'invalid');
  const { current, unknown } = await readCurrent(candidates, ctx);
  for (const p of candidates) {
    const key = entryKey(p);
    if (unknown.has(key)) {
      Object.assign(p, { status: 'unknown_identity', reason: `${p.kind === 'user' ? 'user' : 'service account'} is not in the organization` });
      continue;
    }
    const before = current.get(`${key}|${p.resource}|${p.period}`) ?? null;
    p.before = before;
    p.status = p.after === (before ?? '') ? 'unchanged' : p.after === '' ? 'cleared' : before === null || before === '' ? 'new' : 'changed';
  }
  return planned;
}

/**
 * Current overrides of the named identities. The API answers 400 listing every unknown identity; those
 * are set aside and the rest read again, so one unknown name never hides the others' state. When the
 * list cannot be read from the message, the error stands: guessing would misstate what exists.
 */
async function readCurrent(entries: PlannedEntry[], ctx: ToolContext): Promise<{ current: Map<string, string>; unknown: Set<string> }> {
  const unknown = new Set<string>();
  for (let attempt = 0; attempt < 3; attempt++) {
    const names = uniqueNames(entries.filter((p) => !unknown.has(entryKey(p))));
    if (!names.user_emails.length && !names.service_account_names.length) return { current: new Map(), unknown };
    try {
      const { value } = await ctx.client.getOverrides(names, ctx.signal);
      const current = new Map(value.overrides.map((o: Override) => [`${identityKey(o)}|${o.resource}|${o.period}`, o.config.limit]));
      return { current, unknown };
    } catch (error) {
      if (!(error instanceof InvalidArgumentError) || !error.fromUpstream) throw error;
      const listed = listedNames(error.message);
      const named = [...names.user_emails.map((e) => identityKey({ user_email: e })), ...names.service_account_names.map((s) => identityKey({ service_account_name: s }))];
      const found = named.filter((key) => listed.has(key));
      if (found.length === 0) throw error;
      for (const key of found) unknown.add(key);
    }
  }
  throw new InvalidArgumentError('Could not read the current budget overrides: the upstream kept refusing the identities. Check the emails and service-account names');
}

function uniqueNames(entries: PlannedEntry[]) {
  return {
    user_emails: [...new Set(entries.filter((p) => p.kind === 'user').map((p) => p.user.toLowerCase()))],
    service_account_names: [...new Set(entries.filter((p) => p.kind === 'service_account').map((p) => p.user))],
  };
}

/**
 * The identities an "unknown identities" message lists: the comma-separated items after its last colon,
 * as identity keys (an item with @ as an email, any other as a service-account name).
 */
export function listedNames(message: string): Set<string> {
  const colon = message.lastIndexOf(':');
  if (colon < 0) return new Set();
  const items = message
    .slice(colon + 1)
    .split(',')
    .map((item) => item.trim().replace(/\.$/, '').replace(/^['"]|['"]$/g, ''))
    .filter(Boolean);
  return new Set(items.map((item) => identityKey(item.includes('@') ? { user_email: item } : { service_account_name: item })));
}
