import type { z } from 'zod';
import type { RateGroup } from '../contract/limits.js';
import { parseIsoDay } from '../util/utc-date.js';
import type { Operation } from './caller.js';
import { changelogPolicy, creditPolicy, dailyPolicy } from './freshness.js';
import * as S from './schemas.js';

const daily = (now: number) => dailyPolicy(now);
const credit = (now: number, params: Record<string, unknown>) => creditPolicy(now, parseIsoDay(String(params.end_date)) ?? Number.POSITIVE_INFINITY);

function op<T extends z.ZodType>(endpoint: string, method: 'GET' | 'POST', schema: T, group: RateGroup, cache: Operation<T>['cache'], retry: 'read' | 'write' = 'read'): Operation<T> {
  return { endpoint, method, path: `/analytics/v0/${endpoint}`, host: 'api', group, retry, schema, cache };
}

/** Every upstream endpoint the client calls. */
export const OPS = {
  dauCount: op('dau-count', 'GET', S.dauCountSchema, 'general', daily),
  dau: op('dau', 'GET', S.dauSchema, 'general', daily),
  dailyUsage: op('daily-usage', 'GET', S.dailyUsageSchema, 'general', daily),
  userActivity: op('user-activity', 'GET', S.userActivitySchema, 'general', daily),
  editorLanguage: op('daily-user-activity-by-editor-language', 'GET', S.editorLanguageSchema, 'general', daily),
  creditUsage: op('credit-usage-by-user', 'GET', S.creditUsageSchema, 'credit-usage', credit),
  costAnalytics: op('cost-analytics', 'POST', S.costAnalyticsSchema, 'cost-analytics', daily),
  // Budget configuration is real time: never cached. Reading it is safe to retry; writing is not.
  getOverrides: op('get-user-budget-overrides', 'POST', S.getOverridesSchema, 'general', null),
  setOverrides: op('set-user-budget-overrides', 'POST', S.setOverridesSchema, 'general', null, 'write'),
  changelog: {
    endpoint: 'changelog',
    method: 'GET',
    path: '/api/changelog',
    host: 'site',
    group: null,
    retry: 'read',
    schema: S.changelogSchema,
    cache: () => changelogPolicy(),
  } satisfies Operation<typeof S.changelogSchema>,
};
