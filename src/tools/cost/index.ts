import { getChargeback } from './get-chargeback.js';
import { getCreditUsage } from './get-credit-usage.js';
import { getCostAnalytics } from './get-cost-analytics.js';
import type { ToolDef } from '../types.js';

/** The cost toolset's tools, in the order tools/list shows them. */
export const COST_TOOLS: readonly ToolDef[] = [getCreditUsage, getCostAnalytics, getChargeback];
