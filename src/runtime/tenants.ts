import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { ConfigError, type Config } from '../config/config.js';
import { createLogger, secretScrubber } from '../logger.js';
import { createRuntime, sharedRedis, type Runtime } from './runtime.js';
import { once } from '../util/once.js';

const tenantSchema = z.strictObject({
  base_url: z.url(),
  /** The name of the environment variable that holds the tenant's upstream token: never the token itself. */
  token_env: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must name an environment variable, e.g. ACME_API_TOKEN'),
  site_url: z.url().optional(),
  billing_plan: z.enum(['credits', 'usd']).optional(),
  /** The tenant's own directory file, and the variable holding its own SCIM token (issue 34). */
  directory: z.string().min(1).optional(),
  scim_token_env: z
    .string()
    .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must name an environment variable, e.g. ACME_SCIM_TOKEN')
    .optional(),
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
        'It maps each tenant to { "base_url": "...", "token_env": "NAME_OF_ENV_VAR" }, with optional site_url, billing_plan, directory and scim_token_env.',
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
      directory: t.directory,
      scimTokenEnv: t.scim_token_env,
    });
  }
  return configs;
}

export interface Tenants {
  /** Each tenant's runtime: tenants of one organization share one. */
  byName: Map<string, Runtime>;
  /** Each organization's runtime, once. */
  runtimes: Runtime[];
  /** Closes each runtime once, then the Redis connection they share. */
  close(): Promise<void>;
}

/**
 * One runtime per organization: tenants that share an upstream and token are the same organization, and
 * share one. Every runtime uses the one Redis connection of the process: its keys carry each organization's
 * credential fingerprint, which keeps them apart.
 */
export async function tenantRuntimes(config: Config, env: NodeJS.ProcessEnv): Promise<Tenants> {
  const configs = tenantConfigs(config, env);
  const tokens = [...configs.values()].map((c) => c.token);
  const redis = config.redisUrl
    ? await sharedRedis(config.redisUrl, createLogger(config.logLevel, secretScrubber(tokens)))
    : undefined;
  const byUpstream = new Map<string, Runtime>();
  const byName = new Map<string, Runtime>();
  const close = once(async () => {
    for (const runtime of byUpstream.values()) await runtime.close();
    await redis?.close();
  });
  try {
    for (const [name, tenant] of configs) {
      const key = `${tenant.baseUrl}|${tenant.token}`;
      let runtime = byUpstream.get(key);
      if (!runtime) byUpstream.set(key, (runtime = await createRuntime(tenant, { env, redis })));
      byName.set(name, runtime);
    }
  } catch (error) {
    await close();
    throw error;
  }
  return { byName, runtimes: [...byUpstream.values()], close };
}
