import { parseArgs } from 'node:util';
import { z } from 'zod';

/** Everything the server is configured with: flags win over environment variables. */
export const configSchema = z.object({
  token: z.string().min(1).optional(),
  baseUrl: z.url({ message: 'ANALYTICS_BASE_URL must be an http(s) URL' }).optional(),
  siteUrl: z.url({ message: 'ANALYTICS_SITE_URL must be an http(s) URL' }).optional(),
  billingPlan: z.enum(['credits', 'usd']).optional(),
  readOnly: z.boolean().default(false),
  demo: z.boolean().default(false),
  pii: z.enum(['full', 'pseudonymous']).default('full'),
  /** Key for pseudonyms; by default derived from the API token, so they are stable per organization. */
  piiKey: z.string().min(1).optional(),
  logLevel: z.enum(['error', 'warn', 'info', 'debug']).default('info'),
  confirmWrites: z.enum(['auto', 'never']).default('auto'),
  auditLog: z.string().min(1).optional(),
  transport: z.enum(['stdio', 'http']).default('stdio'),
  port: z.number().int().min(0).max(65535).default(3000),
  host: z.string().default('127.0.0.1'),
  /**
   * The budget of one tool call, in seconds. MCP clients commonly give up after 60 s; 42 s leaves the
   * answer (an isError saying the API did not answer in time) room to arrive well before that.
   */
  callTimeoutS: z
    .number({ message: '--call-timeout / ANALYTICS_CALL_TIMEOUT_S must be a number of seconds, e.g. 42' })
    .positive({ message: '--call-timeout / ANALYTICS_CALL_TIMEOUT_S must be more than 0 seconds' })
    .max(3600, { message: '--call-timeout / ANALYTICS_CALL_TIMEOUT_S must be at most 3600 seconds' })
    .default(42),
});
export type Config = z.output<typeof configSchema>;

export const HELP = `Usage: org-analytics-mcp [options]
       org-analytics-mcp simulator [options]   (see: org-analytics-mcp simulator --help)
       org-analytics-mcp tour                  (a guided run against the embedded simulator)

An MCP server for an organization's AI coding usage analytics, costs, budget overrides and changelog.

Environment:
  ANALYTICS_API_TOKEN       service-account API token (read scope; write scope to change budgets)
  ANALYTICS_BASE_URL        analytics API base URL, e.g. https://api.example.com
  ANALYTICS_SITE_URL        website serving /api/changelog (default: the base URL's origin)
  ANALYTICS_BILLING_PLAN    credits or usd (default: inferred from existing overrides)
  ANALYTICS_READ_ONLY       true hides set_budget_overrides
  ANALYTICS_PII             full (default) or pseudonymous
  ANALYTICS_PII_KEY         key for stable pseudonyms (default: derived from the token)
  ANALYTICS_LOG_LEVEL       error, warn, info (default) or debug
  ANALYTICS_CALL_TIMEOUT_S  seconds one tool call may take before it answers an error (default 42)
  HTTPS_PROXY, HTTP_PROXY, NO_PROXY   outbound proxy

Options:
  --demo                    serve against the embedded simulator: no token or URL needed
  --read-only               hide set_budget_overrides
  --pii full|pseudonymous   replace emails with stable pseudonyms in answers and logs
  --log-level LEVEL         error, warn, info or debug (logs go to stderr)
  --confirm-writes auto|never   ask the user before writing budgets when the client can (default auto)
  --audit-log PATH          also append budget-change audit lines to PATH
  --call-timeout SECONDS    budget of one tool call: past it, the call answers an error (default 42)
  --http                    serve Streamable HTTP instead of stdio
  --port N, --host H        where --http listens (default 127.0.0.1:3000)
  --version, --help
`;

export class ConfigError extends Error {}

const bool = (v: string | undefined) => (v === undefined ? undefined : ['1', 'true', 'yes', 'on'].includes(v.trim().toLowerCase()));
const blankToUndefined = (v: string | undefined) => (v === undefined || v.trim() === '' ? undefined : v.trim());
/** Text that is not a plain number stays text, so validation names the setting instead of accepting NaN. */
const seconds = (v: string | undefined) => (v === undefined ? undefined : /^\d+(\.\d+)?$/.test(v.trim()) ? Number(v.trim()) : v);

/** Reads flags and environment into a validated config; throws ConfigError with a readable message. */
export function loadConfig(argv: string[], env: NodeJS.ProcessEnv): Config {
  let values: Record<string, string | boolean | undefined>;
  try {
    values = parseArgs({
      args: argv,
      strict: true,
      options: {
        demo: { type: 'boolean' },
        'read-only': { type: 'boolean' },
        pii: { type: 'string' },
        'log-level': { type: 'string' },
        'confirm-writes': { type: 'string' },
        'audit-log': { type: 'string' },
        http: { type: 'boolean' },
        port: { type: 'string' },
        host: { type: 'string' },
        'call-timeout': { type: 'string' },
      },
    }).values;
  } catch (error) {
    throw new ConfigError(`${(error as Error).message}\nRun org-analytics-mcp --help for the options.`);
  }
  const raw = {
    token: blankToUndefined(env.ANALYTICS_API_TOKEN),
    baseUrl: blankToUndefined(env.ANALYTICS_BASE_URL),
    siteUrl: blankToUndefined(env.ANALYTICS_SITE_URL),
    billingPlan: blankToUndefined(env.ANALYTICS_BILLING_PLAN)?.toLowerCase(),
    readOnly: (values['read-only'] as boolean | undefined) ?? bool(env.ANALYTICS_READ_ONLY),
    demo: values.demo as boolean | undefined,
    pii: (values.pii as string | undefined) ?? blankToUndefined(env.ANALYTICS_PII),
    piiKey: blankToUndefined(env.ANALYTICS_PII_KEY),
    logLevel: (values['log-level'] as string | undefined) ?? blankToUndefined(env.ANALYTICS_LOG_LEVEL),
    confirmWrites: values['confirm-writes'] as string | undefined,
    auditLog: values['audit-log'] as string | undefined,
    transport: values.http ? 'http' : undefined,
    port: values.port === undefined ? undefined : Number(values.port),
    host: values.host as string | undefined,
    callTimeoutS: seconds((values['call-timeout'] as string | undefined) ?? blankToUndefined(env.ANALYTICS_CALL_TIMEOUT_S)),
  };
  const parsed = configSchema.safeParse(raw);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}\nRun org-analytics-mcp --help for the options.`);
  }
  const config = parsed.data;
  if (!config.demo && (!config.token || !config.baseUrl)) {
    const missing = [!config.token && 'ANALYTICS_API_TOKEN', !config.baseUrl && 'ANALYTICS_BASE_URL'].filter(Boolean).join(' and ');
    throw new ConfigError(
      `${missing} ${missing.includes(' and ') ? 'are' : 'is'} not set.\n` +
        `  To use your organization's data: set ANALYTICS_API_TOKEN (a service-account API token) and ANALYTICS_BASE_URL.\n` +
        `  To try it without credentials: run org-analytics-mcp --demo (an embedded simulator with a synthetic organization).`,
    );
  }
  return config;
}
