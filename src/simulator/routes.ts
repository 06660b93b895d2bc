import type { RateGroup } from '../contract/limits.js';
import { costAnalytics } from './endpoints/cost-analytics.js';
import { creditUsage } from './endpoints/credit-usage.js';
import { getOverrides, setOverrides } from './endpoints/budget-overrides.js';
import { changelog } from './endpoints/changelog.js';
import { dailyUsage, dau, dauCount, editorLanguage, userActivity } from './endpoints/metrics-endpoints.js';
import type { EndpointContext } from './state.js';

export interface Route {
  method: 'GET' | 'POST';
  /** null: public, no token and no rate limit (the changelog). */
  scope: 'read' | 'write' | null;
  group: RateGroup;
  handle: (ctx: EndpointContext) => unknown;
}

export const CHANGELOG_PATH = '/api/changelog';

export const ROUTES: Record<string, Route> = {
  '/analytics/v0/dau-count': { method: 'GET', scope: 'read', group: 'general', handle: dauCount },
  '/analytics/v0/dau': { method: 'GET', scope: 'read', group: 'general', handle: dau },
  '/analytics/v0/daily-usage': { method: 'GET', scope: 'read', group: 'general', handle: dailyUsage },
  '/analytics/v0/user-activity': { method: 'GET', scope: 'read', group: 'general', handle: userActivity },
  '/analytics/v0/daily-user-activity-by-editor-language': {
    method: 'GET',
    scope: 'read',
    group: 'general',
    handle: editorLanguage,
  },
  '/analytics/v0/credit-usage-by-user': { method: 'GET', scope: 'read', group: 'credit-usage', handle: creditUsage },
  '/analytics/v0/cost-analytics': { method: 'POST', scope: 'read', group: 'cost-analytics', handle: costAnalytics },
  '/analytics/v0/get-user-budget-overrides': { method: 'POST', scope: 'read', group: 'general', handle: getOverrides },
  '/analytics/v0/set-user-budget-overrides': { method: 'POST', scope: 'write', group: 'general', handle: setOverrides },
  [CHANGELOG_PATH]: { method: 'GET', scope: null, group: 'general', handle: changelog },
};
