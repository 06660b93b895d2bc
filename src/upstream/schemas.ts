import { z } from 'zod';
import { METRIC_FIELDS, type MetricField } from '../contract/metrics.js';

/**
 * Upstream responses as the client accepts them: every documented field with its type, unknown extra
 * fields tolerated (and dropped). A value of the wrong type fails validation (a protocol error).
 */
const count = z.number().int().nonnegative();
/** Token counts: a JSON number, or a decimal string once above 2^53−1. */
export const bigCount = z.union([count, z.string().regex(/^\d+$/, 'a token count string must hold digits only')]);
const isoDate = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'expected a YYYY-MM-DD date');
const decimal = z.string().regex(/^-?\d+(\.\d+)?$/, 'expected a decimal string');

export const metricsSchema = z.object(Object.fromEntries(METRIC_FIELDS.map((f) => [f, count])) as Record<MetricField, typeof count>);

const identityShape = { user_email: z.string().optional(), service_account_name: z.string().optional() };
const exactlyOneIdentity = (v: object) => ('user_email' in v && v.user_email !== undefined) !== ('service_account_name' in v && v.service_account_name !== undefined);
const identityMessage = { message: 'a record must carry exactly one of user_email or service_account_name' };
const withIdentity = <T extends z.ZodRawShape>(shape: T) => z.object({ ...identityShape, ...shape }).refine(exactlyOneIdentity, identityMessage);

export const paginationSchema = z.object({ next_cursor: z.string().optional(), has_more: z.boolean() });
const generatedAt = z.string();
const rangeMeta = { effective_start_date: isoDate, effective_end_date: isoDate, generated_at: generatedAt };

export const dauCountSchema = z.object({
  daily_active_user_counts: z.array(z.object({ date: isoDate, user_count: count })),
  metadata: z.object({ ...rangeMeta, total_days: count }),
});
export const dauSchema = z.object({
  users: z.array(withIdentity({})),
  pagination: paginationSchema,
  metadata: z.object({ effective_date: isoDate, generated_at: generatedAt, returned_user_count: count }),
});
export const dailyUsageSchema = z.object({
  daily_usage: z.array(z.object({ date: isoDate, metrics: metricsSchema })),
  metadata: z.object({ ...rangeMeta, total_days: count }),
});
export const userActivitySchema = z.object({
  users: z.array(withIdentity({ active_days: count, metrics: metricsSchema })),
  pagination: paginationSchema,
  metadata: z.object({ ...rangeMeta, total_days: count, returned_user_count: count }),
});
export const editorLanguageSchema = z.object({
  records: z.array(withIdentity({ language: z.string(), editor: z.string(), metrics: metricsSchema })),
  pagination: paginationSchema,
  metadata: z.object({ effective_date: isoDate, generated_at: generatedAt, returned_record_count: count }),
});
export const creditUsageSchema = z.object({
  records: z.array(withIdentity({ credits_consumed: count, date: isoDate.optional(), model_name: z.string().optional() })),
  pagination: paginationSchema,
  metadata: z.object({ ...rangeMeta, returned_record_count: count }),
});

export const costMetricsSchema = z.object({
  billed_amount_usd: decimal,
  estimated_customer_cost_usd: decimal,
  base_cost_usd: decimal,
  surcharge_usd: decimal,
  input_tokens: bigCount,
  output_tokens: bigCount,
  cache_read_tokens: bigCount,
  cache_write_tokens: bigCount,
  credits_consumed: decimal,
});
export const groupByValuesSchema = z.object({
  product_display_name: z.string().optional(),
  byok_status: z.string().optional(),
  resource_display_name: z.string().optional(),
  resource_type: z.string().optional(),
  user_info: z
    .object({ user_type: z.string(), user_email: z.string().optional(), service_account_name: z.string().optional(), bot_name: z.string().optional() })
    .optional(),
  expert_info: z.object({ expert_id: z.string().optional(), name: z.string().optional() }).optional(),
});
export const costAnalyticsSchema = z.object({
  data_points: z.array(z.object({ start_date: isoDate, end_date: isoDate, cost_metrics: costMetricsSchema, group_by_values: groupByValuesSchema.default({}) })),
  pagination: paginationSchema,
  metadata: z.object({ ...rangeMeta, returned_data_point_count: count }),
});

export const overrideSchema = withIdentity({ resource: z.string(), period: z.string(), config: z.object({ limit: z.string() }) });
export const getOverridesSchema = z.object({ overrides: z.array(overrideSchema) });
export const setOverridesSchema = z.object({ failures: z.array(withIdentity({ error_message: z.string() })) });

export const changelogSchema = z.object({
  entries: z.array(z.record(z.string(), z.unknown())),
  total: count,
  page: count,
  pageSize: count,
  hasMore: z.boolean(),
  client: z.string(),
});

/** The analytics error body; read leniently, since it only feeds messages. */
export const apiErrorSchema = z.object({ error: z.object({ code: z.string().optional(), message: z.string().optional() }) });
export const changelogErrorSchema = z.object({ code: z.string().optional(), message: z.string().optional(), error: z.string().optional(), resolution: z.string().optional() });

export type DauCount = z.infer<typeof dauCountSchema>;
export type Dau = z.infer<typeof dauSchema>;
export type DailyUsage = z.infer<typeof dailyUsageSchema>;
export type UserActivity = z.infer<typeof userActivitySchema>;
export type EditorLanguage = z.infer<typeof editorLanguageSchema>;
export type CreditUsage = z.infer<typeof creditUsageSchema>;
export type CostAnalytics = z.infer<typeof costAnalyticsSchema>;
export type CostPoint = CostAnalytics['data_points'][number];
export type Override = z.infer<typeof overrideSchema>;
export type GetOverrides = z.infer<typeof getOverridesSchema>;
export type SetOverrides = z.infer<typeof setOverridesSchema>;
export type Changelog = z.infer<typeof changelogSchema>;
export type Metrics = z.infer<typeof metricsSchema>;
