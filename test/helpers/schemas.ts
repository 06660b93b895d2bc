import { z } from 'zod';
import { METRIC_FIELDS } from '../../src/contract/metrics.js';

/** Strict schemas of what the simulator must send: exact fields, exact types, nothing extra. */
const date = z.string().regex(/^\d{4}-\d{2}-\d{2}$/);
const int = z.number().int().nonnegative();
const decimal = z.string().regex(/^\d+\.\d+$/);
const tokenCount = z.union([
  z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER),
  z
    .string()
    .regex(/^\d+$/)
    .refine((s) => BigInt(s) > BigInt(Number.MAX_SAFE_INTEGER), 'a string token count must exceed 2^53-1'),
]);

export const identity = z.union([
  z.object({ user_email: z.email() }).strict(),
  z.object({ service_account_name: z.string().regex(/^[A-Za-z0-9_-]{1,100}$/) }).strict(),
]);
const withIdentity = <T extends z.ZodRawShape>(shape: T) =>
  z.union([
    z.object({ user_email: z.email(), ...shape }).strict(),
    z.object({ service_account_name: z.string().regex(/^[A-Za-z0-9_-]{1,100}$/), ...shape }).strict(),
  ]);

export const metrics = z
  .object(Object.fromEntries(METRIC_FIELDS.map((f) => [f, int])) as Record<(typeof METRIC_FIELDS)[number], typeof int>)
  .strict();
const pagination = z.object({ next_cursor: z.string(), has_more: z.boolean() }).strict();
const generatedAt = z.iso.datetime();
const rangeMeta = { effective_start_date: date, effective_end_date: date, generated_at: generatedAt };

export const dauCount = z
  .object({
    daily_active_user_counts: z.array(z.object({ date, user_count: int }).strict()),
    metadata: z.object({ ...rangeMeta, total_days: int }).strict(),
  })
  .strict();
export const dau = z
  .object({
    users: z.array(identity),
    pagination,
    metadata: z.object({ effective_date: date, generated_at: generatedAt, returned_user_count: int }).strict(),
  })
  .strict();
export const dailyUsage = z
  .object({
    daily_usage: z.array(z.object({ date, metrics }).strict()),
    metadata: z.object({ ...rangeMeta, total_days: int }).strict(),
  })
  .strict();
export const userActivity = z
  .object({
    users: z.array(withIdentity({ active_days: int, metrics })),
    pagination,
    metadata: z.object({ ...rangeMeta, total_days: int, returned_user_count: int }).strict(),
  })
  .strict();
export const editorLanguage = z
  .object({
    records: z.array(withIdentity({ language: z.string().min(1), editor: z.string().min(1), metrics })),
    pagination,
    metadata: z.object({ effective_date: date, generated_at: generatedAt, returned_record_count: int }).strict(),
  })
  .strict();
export const creditUsage = z
  .object({
    records: z.array(withIdentity({ credits_consumed: int, date: date.optional(), model_name: z.string().optional() })),
    pagination,
    metadata: z.object({ ...rangeMeta, returned_record_count: int }).strict(),
  })
  .strict();

const userInfo = z
  .object({
    user_type: z.enum([
      'COST_ANALYTICS_USER_TYPE_USER',
      'COST_ANALYTICS_USER_TYPE_SERVICE_ACCOUNT',
      'COST_ANALYTICS_USER_TYPE_BOT',
    ]),
    user_email: z.email().optional(),
    service_account_name: z.string().optional(),
    bot_name: z.string().optional(),
  })
  .strict()
  .refine(
    (u) => [u.user_email, u.service_account_name, u.bot_name].filter((x) => x !== undefined).length <= 1,
    'at most one identity',
  );
export const costPoint = z
  .object({
    start_date: date,
    end_date: date,
    cost_metrics: z
      .object({
        billed_amount_usd: decimal,
        estimated_customer_cost_usd: decimal,
        base_cost_usd: decimal,
        surcharge_usd: decimal,
        input_tokens: tokenCount,
        output_tokens: tokenCount,
        cache_read_tokens: tokenCount,
        cache_write_tokens: tokenCount,
        credits_consumed: decimal,
      })
      .strict(),
    group_by_values: z
      .object({
        product_display_name: z.string().optional(),
        byok_status: z.enum(['COST_ANALYTICS_BYOK_STATUS_BYOK', 'COST_ANALYTICS_BYOK_STATUS_NON_BYOK']).optional(),
        resource_display_name: z.string().optional(),
        resource_type: z
          .enum(['COST_ANALYTICS_RESOURCE_TYPE_MODEL', 'COST_ANALYTICS_RESOURCE_TYPE_COMPUTE'])
          .optional(),
        user_info: userInfo.optional(),
        expert_info: z.object({ expert_id: z.string().optional(), name: z.string().optional() }).strict().optional(),
      })
      .strict(),
  })
  .strict();
export const costAnalytics = z
  .object({
    data_points: z.array(costPoint),
    pagination,
    metadata: z.object({ ...rangeMeta, returned_data_point_count: int }).strict(),
  })
  .strict();

export const override = withIdentity({
  resource: z.enum(['BUDGET_RESOURCE_CREDITS_CONSUMED', 'BUDGET_RESOURCE_USD_COST']),
  period: z.literal('BUDGET_PERIOD_MONTHLY'),
  config: z.object({ limit: z.string().regex(/^(?:[1-9]\d{0,17})?$/) }).strict(),
});
export const getOverrides = z.object({ overrides: z.array(override) }).strict();
export const setOverrides = z
  .object({ failures: z.array(withIdentity({ error_message: z.string().min(1) })) })
  .strict();

export const apiError = z
  .object({ error: z.object({ code: z.string().min(1), message: z.string().min(1) }).strict() })
  .strict();
export const changelogError = z
  .object({
    success: z.literal(false),
    error: z.string(),
    code: z.string(),
    message: z.string(),
    resolution: z.string(),
  })
  .strict();
export const changelog = z
  .object({
    entries: z.array(z.object({}).passthrough()),
    total: int,
    page: int,
    pageSize: z.literal(10),
    hasMore: z.boolean(),
    client: z.string(),
  })
  .strict();
