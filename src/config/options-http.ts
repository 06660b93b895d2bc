import { z } from 'zod';
import type { Option } from './cli-options.js';
import { TELEMETRY_OPTIONS } from './options-telemetry.js';

/** "a, b,c" → ['a', 'b', 'c']; an empty list is refused. */
const commaList = z
  .string()
  .transform((text) =>
    text
      .split(',')
      .map((item) => item.trim())
      .filter(Boolean),
  )
  .pipe(z.array(z.string()).min(1, { message: 'needs at least one name' }));

/** The options of serving over HTTP, part of the server's one table (src/config/options.ts). */
export const HTTP_OPTIONS = {
  transport: {
    flag: 'http',
    env: 'ANALYTICS_HTTP',
    kind: 'switch',
    schema: z
      .preprocess((on) => (typeof on === 'boolean' ? (on ? 'http' : 'stdio') : on), z.enum(['stdio', 'http']))
      .default('stdio'),
    shown: 'off',
    help: 'serve Streamable HTTP at /mcp instead of stdio',
  },
  port: {
    flag: 'port',
    env: 'ANALYTICS_PORT',
    kind: 'number',
    value: 'N',
    schema: z.number().int().min(0).max(65535).default(3000),
    shown: '3000',
    help: 'port that --http listens on',
  },
  host: {
    flag: 'host',
    env: 'ANALYTICS_HOST',
    kind: 'text',
    value: 'HOST',
    schema: z.string().min(1).default('127.0.0.1'),
    shown: '127.0.0.1',
    help: 'address that --http binds; one other than loopback needs caller authentication (--auth-issuer or --api-keys-file)',
  },
  publicUrl: {
    flag: 'public-url',
    env: 'ANALYTICS_PUBLIC_URL',
    kind: 'text',
    value: 'URL',
    schema: z.url().optional(),
    shown: 'none',
    help: 'the URL clients use for /mcp, e.g. https://mcp.example.com/mcp: the token audience, and the allowed host and origin',
  },
  allowedHosts: {
    flag: 'allowed-hosts',
    env: 'ANALYTICS_ALLOWED_HOSTS',
    kind: 'text',
    value: 'LIST',
    schema: commaList.optional(),
    shown: "the public URL's host, or loopback names",
    help: 'comma-separated host names the Host header may carry over HTTP (a port given is ignored)',
  },
  allowedOrigins: {
    flag: 'allowed-origins',
    env: 'ANALYTICS_ALLOWED_ORIGINS',
    kind: 'text',
    value: 'LIST',
    schema: commaList.optional(),
    shown: "the public URL's origin, or loopback origins",
    help: 'comma-separated origins (scheme://host[:port]) browsers may call from; requests without Origin are accepted',
  },
  authIssuer: {
    flag: 'auth-issuer',
    env: 'ANALYTICS_AUTH_ISSUER',
    kind: 'text',
    value: 'URL',
    schema: z.url().optional(),
    shown: 'none',
    help: 'OAuth authorization server whose JWT access tokens callers bring (needs --public-url)',
  },
  tenantsFile: {
    flag: 'tenants-file',
    env: 'ANALYTICS_TENANTS_FILE',
    kind: 'text',
    value: 'FILE',
    schema: z.string().min(1).optional(),
    shown: 'none (one organization)',
    help: 'serve several organizations over --http: JSON of tenant name to { base_url, token_env, site_url?, billing_plan? }',
  },
  tenantClaim: {
    flag: 'tenant-claim',
    env: 'ANALYTICS_TENANT_CLAIM',
    kind: 'text',
    value: 'NAME',
    schema: z.string().min(1).default('tenant'),
    shown: 'tenant',
    help: "the claim of a caller's JWT that names its tenant",
  },
  apiKeysFile: {
    flag: 'api-keys-file',
    env: 'ANALYTICS_API_KEYS_FILE',
    kind: 'text',
    value: 'FILE',
    schema: z.string().min(1).optional(),
    shown: 'none',
    help: 'static API keys made by `org-analytics-mcp api-key create`, accepted as bearer tokens',
  },
  // /metrics is served over --http (OTLP, from any server or command, takes the OpenTelemetry variables only).
  ...TELEMETRY_OPTIONS,
} as const satisfies Record<string, Option>;
