import { z } from 'zod';

/** The authorization server (authorization code with PKCE) and its one registered public client. */
export const oauthOptionsSchema = z
  .object({
    /** Mount point: {path}/authorize and {path}/token. */
    path: z
      .string()
      .regex(/^(\/[A-Za-z0-9._~-]+)+$/, 'path must look like /oauth: no trailing slash')
      .default('/oauth'),
    clientId: z.string().min(1).default('org-analytics-mcp'),
    /** Matched exactly, except that a loopback IP host accepts any port (RFC 8252 7.3). */
    redirectUris: z
      .array(z.url({ protocol: /^https?$/ }))
      .min(1)
      .default(['http://127.0.0.1/callback']),
    /** Skip the consent page: /authorize redirects with a code at once. */
    autoApprove: z.boolean().default(false),
    accessTokenTtlSeconds: z.number().int().min(1).default(3600),
    /** How long a code, and a consent page, stays usable. */
    codeTtlSeconds: z.number().int().min(1).default(60),
    /**
     * What the token answer carries; the spec shows none of it, so a client must cope with less. Off:
     * refresh answers without a new refresh token (the old one stays valid), no `scope`, no `expires_in`,
     * no `user_email`.
     */
    answer: z
      .object({
        rotateRefreshTokens: z.boolean().default(true),
        scope: z.boolean().default(true),
        expiresIn: z.boolean().default(true),
        identity: z.boolean().default(true),
      })
      .strict()
      .prefault({}),
  })
  .strict();

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
    oauth: oauthOptionsSchema.prefault({}),
  })
  .strict();

export type SimulatorOptions = z.input<typeof simulatorOptionsSchema>;
export type ResolvedSimulatorOptions = z.output<typeof simulatorOptionsSchema>;
