/** Enum names exactly as the upstream API sends and accepts them. */
export const GROUP_BY_KEYS = [
  'COST_ANALYTICS_GROUP_BY_PRODUCT',
  'COST_ANALYTICS_GROUP_BY_RESOURCE',
  'COST_ANALYTICS_GROUP_BY_USER',
  'COST_ANALYTICS_GROUP_BY_BYOK_STATUS',
  'COST_ANALYTICS_GROUP_BY_EXPERT',
] as const;
export type GroupByKey = (typeof GROUP_BY_KEYS)[number];

export const GRANULARITIES = ['COST_ANALYTICS_TIME_GRANULARITY_TOTAL', 'COST_ANALYTICS_TIME_GRANULARITY_DAY'] as const;
export type Granularity = (typeof GRANULARITIES)[number];

export const BYOK_STATUS = {
  byok: 'COST_ANALYTICS_BYOK_STATUS_BYOK',
  nonByok: 'COST_ANALYTICS_BYOK_STATUS_NON_BYOK',
} as const;
export const RESOURCE_TYPE = {
  model: 'COST_ANALYTICS_RESOURCE_TYPE_MODEL',
  compute: 'COST_ANALYTICS_RESOURCE_TYPE_COMPUTE',
} as const;
export const USER_TYPE = {
  user: 'COST_ANALYTICS_USER_TYPE_USER',
  serviceAccount: 'COST_ANALYTICS_USER_TYPE_SERVICE_ACCOUNT',
  bot: 'COST_ANALYTICS_USER_TYPE_BOT',
} as const;

export const BUDGET_RESOURCES = ['BUDGET_RESOURCE_CREDITS_CONSUMED', 'BUDGET_RESOURCE_USD_COST'] as const;
export type BudgetResource = (typeof BUDGET_RESOURCES)[number];
export const BUDGET_PERIODS = ['BUDGET_PERIOD_MONTHLY'] as const;
export type BudgetPeriod = (typeof BUDGET_PERIODS)[number];

export type BillingPlan = 'credits' | 'usd';
export const PLAN_RESOURCE: Record<BillingPlan, BudgetResource> = {
  credits: 'BUDGET_RESOURCE_CREDITS_CONSUMED',
  usd: 'BUDGET_RESOURCE_USD_COST',
};

/** The changelog's `client` filter. The spec names the fifth value only as an agent-platform product. */
export const AGENT_PLATFORM_CLIENT = 'agent-platform';
export const CHANGELOG_CLIENTS = [
  'vscode',
  'jetbrains',
  'cli',
  'code-review',
  AGENT_PLATFORM_CLIENT,
  'models',
  'all',
] as const;
export type ChangelogClient = (typeof CHANGELOG_CLIENTS)[number];
