import { findAnomaliesTool } from './insights/find-anomalies.js';
import { findInactivePeople } from './insights/find-inactive-people.js';
import { getAdoption } from './insights/get-adoption.js';
import { getActiveUserCounts } from './get-active-user-counts.js';
import { getBudgetOverrides } from './get-budget-overrides.js';
import { getBudgetStatus } from './get-budget-status.js';
import { getChangelog } from './get-changelog.js';
import { getCostAnalytics } from './get-cost-analytics.js';
import { getCreditUsage } from './get-credit-usage.js';
import { getDailyUsage } from './get-daily-usage.js';
import { getEditorLanguageActivity } from './get-editor-language-activity.js';
import { getUsageOverview } from './get-usage-overview.js';
import { getUserActivity } from './get-user-activity.js';
import { getUserProfile } from './get-user-profile.js';
import { listActiveUsers } from './list-active-users.js';
import { setBudgetOverrides } from './set-budget-overrides.js';
import type { ToolDef } from './types.js';

/** Every tool, in the order tools/list shows them. Names and arguments are public API. */
export const TOOLS: ToolDef[] = [
  getUsageOverview,
  getActiveUserCounts,
  listActiveUsers,
  getDailyUsage,
  getUserActivity,
  getUserProfile,
  getEditorLanguageActivity,
  getCreditUsage,
  getCostAnalytics,
  getBudgetOverrides,
  getBudgetStatus,
  setBudgetOverrides,
  getChangelog,
  findInactivePeople,
  findAnomaliesTool,
  getAdoption,
] as unknown as ToolDef[];
