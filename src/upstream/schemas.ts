import { z } from 'zod';
import { METRIC_FIELDS, type MetricField, type Metrics } from '../contract/metrics.js';

/**
 * The pieces upstream response schemas are built from (each endpoint's own schema is in its file under
 * endpoints/): every documented field with its type, unknown extra fields tolerated (and dropped). A
 * value of the wrong type fails validation (a protocol error).
 */
export const count = z.number().int().nonnegative();
/** Token counts: a JSON number, or a decimal string once above 2^53−1. */
export const bigCount = z.union([count, z.string().regex(/^\d+$/, 'a token count string must hold digits only')]);
export const isoDate = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'expected a YYYY-MM-DD date');
export const decimal = z.string().regex(/^-?\d+(\.\d+)?$/, 'expected a decimal string');

export const metricsSchema = z.object(
  Object.fromEntries(METRIC_FIELDS.map((f) => [f, count])) as Record<MetricField, typeof count>,
) satisfies z.ZodType<Metrics>;
/** The metrics of a row: contract/metrics.ts says them once, for the simulator too. */
export type { Metrics };

const identityShape = { user_email: z.string().optional(), service_account_name: z.string().optional() };
const exactlyOneIdentity = (v: object) =>
  ('user_email' in v && v.user_email !== undefined) !==
  ('service_account_name' in v && v.service_account_name !== undefined);
const identityMessage = { message: 'a record must carry exactly one of user_email or service_account_name' };
/** A record of one identity: exactly one of user_email or service_account_name, beside `shape`. */
export const withIdentity = <T extends z.ZodRawShape>(shape: T) =>
  z.object({ ...identityShape, ...shape }).refine(exactlyOneIdentity, identityMessage);

export const paginationSchema = z.object({ next_cursor: z.string().optional(), has_more: z.boolean() });
export const generatedAt = z.string();
/** The metadata of an answer over a range. */
export const rangeMeta = { effective_start_date: isoDate, effective_end_date: isoDate, generated_at: generatedAt };
/** The metadata of an answer about one day. */
export const dayMeta = { effective_date: isoDate, generated_at: generatedAt };

/** The analytics error body; read leniently, since it only feeds messages. */
export const apiErrorSchema = z.object({
  error: z.object({ code: z.string().optional(), message: z.string().optional() }),
});
export const changelogErrorSchema = z.object({
  code: z.string().optional(),
  message: z.string().optional(),
  error: z.string().optional(),
  resolution: z.string().optional(),
});
