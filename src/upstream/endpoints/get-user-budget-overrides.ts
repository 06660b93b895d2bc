import { z } from 'zod';
import type { BillingPlan } from '../../contract/enums.js';
import { defineOperation } from '../endpoint.js';
import { overrideSchema } from './set-user-budget-overrides.js';

export const getOverridesSchema = z.object({ overrides: z.array(overrideSchema) });
export type GetOverrides = z.infer<typeof getOverridesSchema>;

export interface OverrideFilter {
  user_emails?: string[];
  service_account_names?: string[];
  resource?: string;
  period?: string;
}

/** Budget overrides, read in real time (never cached); safe to retry. Empty filters are left out. */
export const getUserBudgetOverrides = defineOperation({
  name: 'get-user-budget-overrides',
  method: 'POST',
  encode: (filter: OverrideFilter) =>
    Object.fromEntries(
      Object.entries(filter).filter(([, v]) => v !== undefined && !(Array.isArray(v) && v.length === 0)),
    ),
  schema: getOverridesSchema,
  cache: null,
});

/** The billing plan the overrides imply, when every one of them names the same resource. */
export function planOf(answer: GetOverrides): BillingPlan | undefined {
  const resources = new Set(answer.overrides.map((o) => o.resource));
  if (resources.size !== 1) return undefined;
  return resources.has('BUDGET_RESOURCE_USD_COST') ? 'usd' : 'credits';
}
