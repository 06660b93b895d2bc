import { z } from 'zod';
import { optionsHelp } from './cli-help.js';
import { readOptions, schemaOf, validateOptions } from './cli-options.js';
import { SERVER_OPTIONS } from './options.js';
import type { LoginAccount } from './stored-login.js';

// The one error class for a configuration the server cannot start with; the CLI exits 2 on it.
export { UsageError as ConfigError } from './cli-options.js';

const settingsSchema = schemaOf(SERVER_OPTIONS);
type Settings = z.output<typeof settingsSchema>;

/**
 * Everything the server is configured with. Outside demo mode a base URL is guaranteed, and either a token
 * or, when no token is set, a login (the sign-in service and client that `org-analytics-mcp login` used).
 */
export type Config = Omit<Settings, 'demo' | 'token' | 'baseUrl' | 'confirmWrites'> & {
  confirmWrites: NonNullable<Settings['confirmWrites']>;
} & (
    | { demo: true; token?: string; baseUrl?: string; login?: undefined }
    | { demo: false; token: string; baseUrl: string; login?: undefined }
    | { demo: false; token?: undefined; baseUrl: string; login: LoginAccount }
  );

function missingCredentials(token: string | undefined, baseUrl: string | undefined): string {
  const missing = [!token && 'ANALYTICS_API_TOKEN', !baseUrl && 'ANALYTICS_BASE_URL'].filter(Boolean).join(' and ');
  return (
    `${missing} ${missing.includes(' and ') ? 'are' : 'is'} not set.\n` +
    `  To use your organization's data: set ANALYTICS_API_TOKEN (a service-account API token) and ANALYTICS_BASE_URL,\n` +
    `  or sign in as yourself: set ANALYTICS_AUTH_URL, ANALYTICS_CLIENT_ID and ANALYTICS_BASE_URL, then run org-analytics-mcp login.\n` +
    `  To try it without credentials: run org-analytics-mcp --demo (an embedded simulator with a synthetic organization).`
  );
}

export const configSchema = settingsSchema.transform((given, ctx): Config => {
  const authenticated = given.transport === 'http' && Boolean(given.authIssuer || given.apiKeysFile);
  const settings = { ...given, confirmWrites: given.confirmWrites ?? (authenticated ? 'always' : 'auto') } as const;
  const { demo, token, baseUrl } = settings;
  if (demo) return { ...settings, demo };
  if (token !== undefined && baseUrl !== undefined) return { ...settings, demo, token, baseUrl };
  const { authUrl, clientId } = settings;
  if (token === undefined && (authUrl !== undefined || clientId !== undefined) && !settings.tenantsFile) {
    const missing = [
      !authUrl && 'ANALYTICS_AUTH_URL',
      !clientId && 'ANALYTICS_CLIENT_ID',
      !baseUrl && 'ANALYTICS_BASE_URL',
    ]
      .filter(Boolean)
      .join(' and ');
    if (!missing)
      return {
        ...settings,
        demo,
        token: undefined,
        baseUrl: baseUrl!,
        login: { authUrl: authUrl!, clientId: clientId! },
      };
    ctx.issues.push({
      code: 'custom',
      message: `To use a login, also set ${missing} (or set ANALYTICS_API_TOKEN to use a service-account token).`,
      input: settings,
    });
    return z.NEVER;
  }
  // Each tenant brings its own upstream and token (see tenants.ts); the server-wide ones stay empty and unused.
  if (settings.tenantsFile !== undefined) {
    if (settings.transport !== 'http' || !authenticated) {
      ctx.issues.push({
        code: 'custom',
        message:
          "--tenants-file needs --http and caller authentication (--auth-issuer or --api-keys-file): the tenant is the caller's.",
        input: settings,
      });
      return z.NEVER;
    }
    return { ...settings, demo, token: '', baseUrl: '' };
  }
  ctx.issues.push({ code: 'custom', message: missingCredentials(token, baseUrl), input: settings });
  return z.NEVER;
});

export const HELP = `Usage: org-analytics-mcp [options]
       org-analytics-mcp simulator [options]   (see: org-analytics-mcp simulator --help)
       org-analytics-mcp tour                  (a guided run against the embedded simulator)
       org-analytics-mcp warm [options]        (fetch the most asked answers into the cache; see warm --help)
       org-analytics-mcp export [options]      (stored history days as CSV or Parquet; see export --help)
       org-analytics-mcp api-key create|revoke|list   (keys for a shared HTTP server; see api-key --help)
       org-analytics-mcp directory check FILE   (what a new directory file would change; see directory check --help)
       org-analytics-mcp alerts test|deliver|status   (alerts after each sync, --alerts-file; see alerts --help)
       org-analytics-mcp login|logout|auth status     (sign in as yourself instead of a token; see login --help)

An MCP server for an organization's AI coding usage analytics, costs, budget overrides and changelog.

${optionsHelp(SERVER_OPTIONS)}
Environment only:
  HTTPS_PROXY, HTTP_PROXY, NO_PROXY   outbound proxy
  OTEL_EXPORTER_OTLP_ENDPOINT         export metrics and traces over OTLP/HTTP (also ..._METRICS_ENDPOINT,
                                      ..._TRACES_ENDPOINT); OTEL_EXPORTER_OTLP_PROTOCOL http/protobuf (default)
                                      or http/json, OTEL_SERVICE_NAME, OTEL_TRACES_SAMPLER: as OpenTelemetry defines

  --version, --help
`;

/** Reads flags and environment into a validated config; throws ConfigError with a readable message. */
export function loadConfig(argv: string[], env: NodeJS.ProcessEnv): Config {
  return validateOptions(
    configSchema,
    readOptions(SERVER_OPTIONS, argv, env, 'org-analytics-mcp'),
    'org-analytics-mcp',
  );
}
