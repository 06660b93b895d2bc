import { z } from 'zod';
import { oneOf, wholeNumber, type Option } from './cli-options.js';
import { HTTP_OPTIONS } from './options-http.js';
import { HISTORY_OPTIONS } from './options-history.js';
import { DIRECTORY_OPTIONS } from './options-directory.js';
import { ALERTS_OPTIONS } from './options-alerts.js';
import { TOOL_OPTIONS } from './options-tools.js';
import { DEFAULT_REFRESH_HOUR_UTC } from '../domain/published-days.js';
import { DEFAULT_MAX_RESPONSE_BYTES } from '../contract/limits.js';

const SECONDS = '--call-timeout / ANALYTICS_CALL_TIMEOUT_S must';
const DEFAULT_MAX_RESPONSE_MB = DEFAULT_MAX_RESPONSE_BYTES / (1024 * 1024);
const ON_THE_COMMAND_LINE = 'prefer the variable: other local users can see a command line';

/**
 * The server's options, the one place they are described: the parser, the environment reading, --help, the README's
 * Configuration table and the manifest's user_config all follow it (test/config/options.test.ts checks the last two).
 */
export const SERVER_OPTIONS = {
  token: {
    flag: 'api-token',
    env: 'ANALYTICS_API_TOKEN',
    kind: 'text',
    value: 'TOKEN',
    schema: z.string().min(1).optional(),
    shown: 'required unless --demo or login',
    help: `service-account API token (read scope; write scope to change budgets); ${ON_THE_COMMAND_LINE}`,
    manifest: 'api_token',
    secret: true,
  },
  baseUrl: {
    flag: 'base-url',
    env: 'ANALYTICS_BASE_URL',
    kind: 'text',
    value: 'URL',
    schema: z.url().optional(),
    shown: 'required unless --demo',
    help: 'analytics API base URL, e.g. https://api.example.com',
    manifest: 'base_url',
  },
  siteUrl: {
    flag: 'site-url',
    env: 'ANALYTICS_SITE_URL',
    kind: 'text',
    value: 'URL',
    schema: z.url().optional(),
    shown: "the base URL's origin",
    help: 'website serving /api/changelog',
    manifest: 'site_url',
  },
  authUrl: {
    flag: 'auth-url',
    env: 'ANALYTICS_AUTH_URL',
    kind: 'text',
    value: 'URL',
    schema: z.url().optional(),
    shown: 'none',
    help: 'OAuth sign-in service ({auth_url}); with --client-id, the server uses the login that `login` stored',
    manifest: 'auth_url',
  },
  clientId: {
    flag: 'client-id',
    env: 'ANALYTICS_CLIENT_ID',
    kind: 'text',
    value: 'ID',
    schema: z.string().min(1).optional(),
    shown: 'none',
    help: 'OAuth client ID registered for org-analytics-mcp',
    manifest: 'client_id',
  },
  credentialStore: {
    flag: 'credential-store',
    env: 'ANALYTICS_CREDENTIAL_STORE',
    ...oneOf(['auto', 'keyring', 'file'], 'auto'),
    help: 'where logins are kept: the OS keychain, falling back to a 0600 file in $XDG_CONFIG_HOME/org-analytics-mcp (auto)',
  },
  billingPlan: {
    flag: 'billing-plan',
    env: 'ANALYTICS_BILLING_PLAN',
    kind: 'text',
    choices: ['credits', 'usd'],
    schema: z.enum(['credits', 'usd']).optional(),
    shown: 'inferred from existing overrides',
    help: 'the billing plan budgets are written in',
    manifest: 'billing_plan',
  },
  readOnly: {
    flag: 'read-only',
    env: 'ANALYTICS_READ_ONLY',
    kind: 'switch',
    schema: z.boolean().default(false),
    shown: 'off',
    help: 'hide set_budget_overrides',
    manifest: 'read_only',
  },
  ...TOOL_OPTIONS,
  pii: {
    flag: 'pii',
    env: 'ANALYTICS_PII',
    ...oneOf(['full', 'pseudonymous'], 'full'),
    help: 'replace emails with stable pseudonyms in answers and logs',
    manifest: 'pii',
  },
  /** Key for pseudonyms; by default derived from the API token, so they are stable per organization. */
  piiKey: {
    flag: 'pii-key',
    env: 'ANALYTICS_PII_KEY',
    kind: 'text',
    value: 'KEY',
    schema: z.string().min(1).optional(),
    shown: 'derived from the token',
    help: `key for stable pseudonyms; ${ON_THE_COMMAND_LINE}`,
    secret: true,
  },
  noUi: {
    flag: 'no-ui',
    env: 'ANALYTICS_NO_UI',
    kind: 'switch',
    schema: z.boolean().default(false),
    shown: 'off',
    help: 'offer no MCP Apps views (charts, the budget editor); answers are the same either way',
    manifest: 'no_ui',
  },
  logLevel: {
    flag: 'log-level',
    env: 'ANALYTICS_LOG_LEVEL',
    ...oneOf(['error', 'warn', 'info', 'debug'], 'info'),
    help: 'how much to log; logs go to stderr',
  },
  confirmWrites: {
    flag: 'confirm-writes',
    env: 'ANALYTICS_CONFIRM_WRITES',
    kind: 'text',
    choices: ['auto', 'always', 'never'],
    // Unset resolves in config.ts: always over HTTP with authenticated callers, auto otherwise.
    schema: z.enum(['auto', 'always', 'never']).optional(),
    shown: 'auto; always with --http and auth',
    help: 'ask before writing budgets: auto when the client can, always (refuse what cannot be confirmed), never',
    manifest: 'confirm_writes',
  },
  auditLog: {
    flag: 'audit-log',
    env: 'ANALYTICS_AUDIT_LOG',
    kind: 'text',
    value: 'PATH',
    schema: z.string().min(1).optional(),
    shown: 'none',
    help: 'also append budget-change audit lines to this file',
  },
  /**
   * The budget of one tool call, in seconds. MCP clients commonly give up after 60 s; 42 s leaves the
   * answer (an isError saying the API did not answer in time) room to arrive well before that.
   */
  callTimeoutS: {
    flag: 'call-timeout',
    env: 'ANALYTICS_CALL_TIMEOUT_S',
    kind: 'number',
    value: 'SECONDS',
    schema: z
      .number({ message: `${SECONDS} be a number of seconds, e.g. 42` })
      .positive({ message: `${SECONDS} be more than 0 seconds` })
      .max(3600, { message: `${SECONDS} be at most 3600 seconds` })
      .default(42),
    shown: '42',
    help: 'budget of one tool call: past it, the call answers an error (MCP clients give up at about 60 s)',
  },
  /**
   * How long a call waits for its data before answering what it has: complete: false, when the full
   * answer will be ready, and a fetch that goes on in the background. Below --call-timeout, so that the
   * answer always arrives before MCP clients give up (about 60 s).
   */
  answerWithinS: {
    flag: 'answer-within',
    env: 'ANALYTICS_ANSWER_WITHIN_S',
    kind: 'number',
    value: 'SECONDS',
    schema: z
      .number({ message: '--answer-within / ANALYTICS_ANSWER_WITHIN_S must be a number of seconds, e.g. 40' })
      .min(1, { message: '--answer-within / ANALYTICS_ANSWER_WITHIN_S must be at least 1 second' })
      .max(3600, { message: '--answer-within / ANALYTICS_ANSWER_WITHIN_S must be at most 3600 seconds' })
      .default(40),
    shown: '40',
    help: 'answer within this long: a larger question answers complete: false, finishes in the background, and says when to ask again',
  },
  cacheDir: {
    flag: 'cache-dir',
    env: 'ANALYTICS_CACHE_DIR',
    kind: 'text',
    value: 'DIR',
    schema: z.string().min(1).optional(),
    shown: '$XDG_CACHE_HOME/org-analytics-mcp',
    help: 'where answers are kept across restarts (0700; files 0600); none turns the disk cache off',
    manifest: 'cache_dir',
  },
  cacheMaxMb: {
    flag: 'cache-max-mb',
    env: 'ANALYTICS_CACHE_MAX_MB',
    kind: 'number',
    value: 'MB',
    schema: wholeNumber('--cache-max-mb / ANALYTICS_CACHE_MAX_MB', 'megabytes', { min: 1, fallback: 500 }),
    shown: '500',
    help: 'size bound of the disk cache; the least recently used answers go first',
  },
  /**
   * The largest upstream response read, in MB. Real pages are a few hundred KB (1,000 cost points, 500 credit
   * records); 32 MB is a hundred times that, yet it fits the in-memory cache (50 MB) and leaves a 512 MB heap
   * room to parse it. Past it the request is cut off while the body streams in.
   */
  maxResponseMb: {
    flag: 'max-response-mb',
    env: 'ANALYTICS_MAX_RESPONSE_MB',
    kind: 'number',
    value: 'MB',
    schema: wholeNumber('--max-response-mb / ANALYTICS_MAX_RESPONSE_MB', 'megabytes', {
      min: 1,
      max: 1024,
      fallback: DEFAULT_MAX_RESPONSE_MB,
    }),
    shown: String(DEFAULT_MAX_RESPONSE_MB),
    help: 'largest upstream response read; a larger one is cut off and the call answers an error naming the endpoint',
    manifest: 'max_response_mb',
  },
  redisUrl: {
    flag: 'redis-url',
    env: 'ANALYTICS_REDIS_URL',
    kind: 'text',
    value: 'URL',
    schema: z.url().optional(),
    shown: 'none',
    help: 'share the cache and the rate limits with every server using this Redis; prefer the variable if it holds a password',
    manifest: 'redis_url',
    secret: true,
  },
  /** One hour for three things: when a day counts as published, when cached daily answers expire, when --warm runs. */
  refreshHour: {
    flag: 'refresh-hour',
    env: 'ANALYTICS_REFRESH_HOUR',
    kind: 'number',
    value: 'HOUR',
    schema: wholeNumber('--refresh-hour / ANALYTICS_REFRESH_HOUR', 'hours (UTC)', {
      min: 0,
      max: 23,
      fallback: DEFAULT_REFRESH_HOUR_UTC,
    }),
    shown: String(DEFAULT_REFRESH_HOUR_UTC),
    help: "hour (UTC) from which yesterday's figures count as published: ranges end there before it, cached answers expire and --warm runs at it",
    manifest: 'refresh_hour',
  },
  warm: {
    flag: 'warm',
    env: 'ANALYTICS_WARM',
    kind: 'switch',
    schema: z.boolean().default(false),
    shown: 'off',
    help: 'fetch the most asked answers into the cache shortly after each daily refresh (--refresh-hour)',
  },
  warmList: {
    flag: 'warm-list',
    env: 'ANALYTICS_WARM_LIST',
    kind: 'text',
    value: 'LIST',
    schema: z.string().min(1).optional(),
    shown: 'see warm --help',
    help: 'what --warm and warm fetch, as comma-separated kind:range names',
  },
  demo: {
    flag: 'demo',
    env: 'ANALYTICS_DEMO',
    kind: 'switch',
    schema: z.boolean().default(false),
    shown: 'off',
    help: 'serve against the embedded simulator: no token or URL needed',
  },
  ...HISTORY_OPTIONS,
  ...DIRECTORY_OPTIONS,
  ...ALERTS_OPTIONS,
  ...HTTP_OPTIONS,
} as const satisfies Record<string, Option>;
