import { PLAN_RESOURCE, type BillingPlan, type BudgetResource } from '../../contract/enums.js';
import { UserInputError } from '../../errors.js';
import { clip } from '../../format/text.js';
import { entryKey, normalizeLimit, type EntryInput, type PlannedEntry } from './budget-entries.js';
import { fullResource, shortResource } from '../../domain/budget-resources.js';
import { readCurrent } from './current-overrides.js';
import { serviceAccountProblem } from '../../privacy/identity-format.js';
import type { ToolContext } from '../types.js';

/**
 * Checks every entry before anything is sent, reads the current overrides of the named identities,
 * and classifies each entry: new, changed, cleared, unchanged, invalid or unknown_identity.
 */
export async function planChanges(
  entries: EntryInput[],
  plan: BillingPlan | undefined,
  ctx: ToolContext,
): Promise<PlannedEntry[]> {
  const planResource = plan ? PLAN_RESOURCE[plan] : undefined;
  const planned: PlannedEntry[] = [];
  for (const [index, e] of entries.entries()) {
    const hasEmail = e.user_email !== undefined && e.user_email !== '';
    const hasAccount = e.service_account_name !== undefined && e.service_account_name !== '';
    const kind = hasEmail ? 'user' : 'service_account';
    const base = {
      index,
      kind,
      user: (hasEmail ? e.user_email : e.service_account_name) ?? '',
      period: 'BUDGET_PERIOD_MONTHLY' as const,
      before: null,
      after: '',
    } satisfies Partial<PlannedEntry>;
    // A refused identity is echoed cut, like any refused value: it may be a megabyte of anything.
    const invalid = (reason: string, resource: BudgetResource | null = null): PlannedEntry => ({
      ...base,
      user: clip(base.user),
      resource,
      status: 'invalid',
      reason,
    });
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
      planned.push(
        invalid(
          'resource is needed: the billing plan is unknown (pass resource credits or usd, or set ANALYTICS_BILLING_PLAN)',
        ),
      );
      continue;
    }
    if (planResource && resource !== planResource) {
      planned.push(
        invalid(
          `resource ${shortResource(resource)} does not match the billing plan (${plan}); use ${shortResource(planResource)}`,
          resource,
        ),
      );
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
        // A refused name marks its entry; a look-up that failed upstream fails the call, in the funnel's words.
        if (!(error instanceof UserInputError)) throw error;
        planned.push(invalid(error.message, resource));
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
    if (p.status !== 'invalid' && n > 1)
      Object.assign(p, {
        status: 'invalid',
        reason: `the same identity, resource and period appear ${n} times; give each once`,
      });
  }

  const candidates = planned.filter((p) => p.status !== 'invalid');
  const { current, unknown } = await readCurrent(candidates, ctx);
  for (const p of candidates) {
    const key = entryKey(p);
    if (unknown.has(key)) {
      Object.assign(p, {
        status: 'unknown_identity',
        reason: `${p.kind === 'user' ? 'user' : 'service account'} is not in the organization`,
      });
      continue;
    }
    const before = current.get(`${key}|${p.resource}|${p.period}`) ?? null;
    p.before = before;
    p.status =
      p.after === (before ?? '')
        ? 'unchanged'
        : p.after === ''
          ? 'cleared'
          : before === null || before === ''
            ? 'new'
            : 'changed';
  }
  return planned;
}
