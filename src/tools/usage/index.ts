import { getUsageOverview } from './get-usage-overview.js';
import { getActiveUserCounts } from './get-active-user-counts.js';
import { listActiveUsers } from './list-active-users.js';
import { getDailyUsage } from './get-daily-usage.js';
import { getUserActivity } from './get-user-activity.js';
import { getUserProfile } from './get-user-profile.js';
import { getTeams } from './get-teams.js';
import type { ToolDef } from '../types.js';

/** The usage toolset's tools, in the order tools/list shows them. */
export const USAGE_TOOLS: readonly ToolDef[] = [
  getUsageOverview,
  getActiveUserCounts,
  listActiveUsers,
  getDailyUsage,
  getUserActivity,
  getUserProfile,
  getTeams,
];
