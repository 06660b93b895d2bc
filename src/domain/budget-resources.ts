import { z } from 'zod';
import { BUDGET_RESOURCES, type BudgetResource } from '../contract/enums.js';

/** Budget resources as tools accept them: short names or the API's full names. */
export const resourceInput = z.enum(['credits', 'usd', ...BUDGET_RESOURCES]);
export const periodInput = z.enum(['monthly', 'BUDGET_PERIOD_MONTHLY']);

export function fullResource(r: z.infer<typeof resourceInput>): BudgetResource {
  return r === 'credits' ? 'BUDGET_RESOURCE_CREDITS_CONSUMED' : r === 'usd' ? 'BUDGET_RESOURCE_USD_COST' : r;
}

export function shortResource(r: string): string {
  return r === 'BUDGET_RESOURCE_CREDITS_CONSUMED' ? 'credits' : r === 'BUDGET_RESOURCE_USD_COST' ? 'usd' : r;
}
