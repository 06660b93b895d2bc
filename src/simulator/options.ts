import { z } from 'zod';

export const simulatorOptionsSchema = z
  .object({
    port: z.number().int().min(0).max(65535).default(0),
    host: z.string().default('127.0.0.1'),
    /** Accepted with read and write scope. */
    token: z.string().min(1).default('sim-token'),
    /** Accepted with read scope only. */
    readToken: z.string().min(1).optional(),
    users: z.number().int().min(1).max(50_000).default(800),
    seed: z.union([z.string(), z.number()]).default('northwind'),
    plan: z.enum(['credits', 'usd']).default('credits'),
    rateLimit: z.boolean().default(true),
    /** The spec does not promise a Retry-After header, so it is off unless asked for. */
    retryAfter: z.boolean().default(false),
    timeScale: z.number().positive().default(1),
    /** Freezes the clock at this instant (ISO 8601 or epoch ms); otherwise it follows real time. */
    now: z.union([z.string(), z.number()]).optional(),
    /** Precompute the last 90 days in the background after start-up. */
    warm: z.boolean().default(true),
    /** The "today" the organization's history is generated around; defaults to the clock's today. */
    anchorDate: z
      .string()
      .regex(/^\d{4}-\d{2}-\d{2}$/)
      .optional(),
  })
  .strict();

export type SimulatorOptions = z.input<typeof simulatorOptionsSchema>;
export type ResolvedSimulatorOptions = z.output<typeof simulatorOptionsSchema>;
