import { getBudgetOverrides } from './get-budget-overrides.js';
import { getBudgetStatus } from './get-budget-status.js';
import { setBudgetOverrides } from './set-budget-overrides.js';

/** The budgets toolset's tools, in the order tools/list shows them. */
export const BUDGETS_TOOLS = [getBudgetOverrides, getBudgetStatus, setBudgetOverrides];
