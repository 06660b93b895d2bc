import { USAGE_TOOLS } from './usage/index.js';
import { EDITORS_TOOLS } from './editors/index.js';
import { COST_TOOLS } from './cost/index.js';
import { BUDGETS_TOOLS } from './budgets/index.js';
import { CHANGELOG_TOOLS } from './changelog/index.js';
import { INSIGHTS_TOOLS } from './insights/index.js';
import type { ToolDef } from './types.js';

/** Every tool, in the order tools/list shows them. Names and arguments are public API. */
export const TOOLS: readonly ToolDef[] = [
  ...USAGE_TOOLS,
  ...EDITORS_TOOLS,
  ...COST_TOOLS,
  ...BUDGETS_TOOLS,
  ...CHANGELOG_TOOLS,
  ...INSIGHTS_TOOLS,
];
