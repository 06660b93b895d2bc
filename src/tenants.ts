import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { ConfigError, type Config } from './config.js';

const tenantSchema = z.strictObject({
  base_url: z.url(),
  /** The name of the environment variable that holds the tenant's upstream token: never the token itself. */
  token_env: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must name an environment variable, e.g. ACME_API_TOKEN'),
  site_url: z.url().optional(),
  billing_plan: z.enum(['credits', 'usd']).optional(),
});
const fileSchema = z
  .record(z.string().min(1), tenantSchema)
  .refine((t) => Object.keys(t).length > 0, 'names no tenant');

/** Each tenant's own configuration: the server's, with the tenant's upstream, token and billing plan. */
export function tenantConfigs(config: Config, env: NodeJS.ProcessEnv): Map<string, Config> {
  const path = config.tenantsFile!;
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new ConfigError(`cannot read the tenants file ${path}: ${(error as Error).message}`);
  }
  const parsed = fileSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new ConfigError(
      `the tenants file ${path} is not valid at ${issue.path.join('.') || 'its top'}: ${issue.message}. ` +
        'It maps each tenant to { "base_url": "...", "token_env": "NAME_OF_ENV_VAR" }, with optional site_url and billing_plan.',
    );
  }
  const configs = new Map<string, Config>();
  for (const [name, t] of Object.entries(parsed.data)) {
    const token = env[t.token_env]?.trim();
    if (!token) throw new ConfigError(`tenant ${name}: the variable ${t.token_env} (its upstream token) is not set.`);
    configs.set(name, {
      ...config,
      demo: false,
      token,
      login: undefined,
      baseUrl: t.base_url,
      siteUrl: t.site_url,
      billingPlan: t.billing_plan ?? config.billingPlan,
    });
  }
  return configs;
}
