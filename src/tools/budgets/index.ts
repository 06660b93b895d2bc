import { getBudgetOverrides } from './get-budget-overrides.js';
import { getBudgetStatus } from './get-budget-status.js';
import { setBudgetOverrides } from './set-budget-overrides.js';
import type { ToolDef } from '../types.js';

/** The budgets toolset's tools, in the order tools/list shows them. */
export const BUDGETS_TOOLS: readonly ToolDef[] = [getBudgetOverrides, getBudgetStatus, setBudgetOverrides];
