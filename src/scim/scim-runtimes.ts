import { join } from 'node:path';
import { ConfigError } from '../config/config.js';
import type { Runtime } from '../runtime/runtime.js';
import { resolveCacheDir } from '../upstream/cache/cache-dir.js';
import { createScimService, type ScimService } from './scim-service.js';

/**
 * The SCIM service of an HTTP server: one directory per runtime whose configuration names a SCIM token variable
 * (the server's own, or each tenant's `scim_token_env`); undefined when none does. What SCIM provisions is kept in
 * the cache directory, and becomes the runtime's directory.
 */
export function scimFor(runtimes: ReadonlyMap<string, Runtime>, env: NodeJS.ProcessEnv): ScimService | undefined {
  const tenants = [...runtimes].flatMap(([name, runtime]) => {
    const variable = runtime.config.scimTokenEnv;
    if (!variable || !runtime.orgState) return [];
    const token = env[variable]?.trim();
    if (!token)
      throw new ConfigError(
        `--scim-token-env ${variable}: the variable ${variable} (the SCIM bearer token) is not set.`,
      );
    const dir = resolveCacheDir(runtime.config.cacheDir);
    const label = name ? `scim:${name}` : 'scim';
    return [
      {
        name: label,
        token,
        ...(dir ? { stateFile: join(dir, `${label.replace(':', '-')}-state.json`) } : {}),
        onSnapshot: runtime.orgState.replace.bind(runtime.orgState),
      },
    ];
  });
  return tenants.length ? createScimService(tenants) : undefined;
}
