import { getCreditUsage } from './get-credit-usage.js';
import { getCostAnalytics } from './get-cost-analytics.js';

/** The cost toolset's tools, in the order tools/list shows them. */
export const COST_TOOLS = [getCreditUsage, getCostAnalytics];
