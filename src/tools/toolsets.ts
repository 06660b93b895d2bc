import type { Toolset } from '../config/options-tools.js';

/**
 * Which toolset each tool belongs to, by concern: `--toolsets` offers the tools of the sets it names
 * (src/mcp/tool-inventory.ts filters). Every tool of the registry has one (test/tools/toolsets.test.ts).
 */
export const TOOLSET_OF: Readonly<Record<string, Toolset>> = {
  get_usage_overview: 'usage',
  get_active_user_counts: 'usage',
  list_active_users: 'usage',
  get_daily_usage: 'usage',
  get_user_activity: 'usage',
  get_user_profile: 'usage',
  get_editor_language_activity: 'editors',
  get_credit_usage: 'cost',
  get_cost_analytics: 'cost',
  get_budget_overrides: 'budgets',
  get_budget_status: 'budgets',
  set_budget_overrides: 'budgets',
  get_changelog: 'changelog',
  find_inactive_people: 'insights',
  find_anomalies: 'insights',
  get_adoption: 'insights',
};

/** Whether a tool is offered under these toolsets; a tool no set names is offered with every choice. */
export const inToolsets = (name: string, toolsets: readonly Toolset[]): boolean => {
  const set = TOOLSET_OF[name];
  return set === undefined || toolsets.includes(set);
};
