import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { newApiKey, writeKeysFile } from '../../src/auth/api-keys.js';
import type { Simulator } from '../../src/simulator/index.js';

export interface TeamFiles {
  tenantsFile: string;
  keysFile: string;
  /** A read key per tenant named (`none` for the key of no tenant). */
  keys: Record<string, string>;
  /** The tenants' upstream tokens, in the variables the tenants file names. */
  env: Record<string, string>;
}

/**
 * The README's team example in `dir`: two organizations (acme, also named acme-eu: same upstream and token,
 * so one runtime and one cache; and globex), and a keys file with one read key per tenant of `keyTenants`.
 */
export function writeTeamFiles(
  dir: string,
  acme: Simulator,
  globex: Simulator,
  keyTenants: Array<string | null>,
): TeamFiles {
  const tenantsFile = join(dir, 'tenants.json');
  writeFileSync(
    tenantsFile,
    JSON.stringify({
      acme: { base_url: acme.url, token_env: 'ACME_API_TOKEN' },
      'acme-eu': { base_url: acme.url, token_env: 'ACME_API_TOKEN' },
      globex: { base_url: globex.url, token_env: 'GLOBEX_API_TOKEN', billing_plan: 'usd' },
    }),
  );
  const keysFile = join(dir, 'keys.json');
  const keys: Record<string, string> = {};
  const entries = keyTenants.map((tenant) => {
    const { key, entry } = newApiKey('read', tenant);
    keys[tenant ?? 'none'] = key;
    return entry;
  });
  writeKeysFile(keysFile, entries);
  return { tenantsFile, keysFile, keys, env: { ACME_API_TOKEN: acme.token, GLOBEX_API_TOKEN: globex.token } };
}

/** One get_active_user_counts call over HTTP with a bearer key, as a 2025-era client sends it. */
export async function askAs(
  url: string,
  key: string,
  args: Record<string, unknown>,
): Promise<{ status: number; result?: any; body: string }> {
  const res = await fetch(url, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${key}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-06-18',
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'get_active_user_counts', arguments: args },
    }),
  });
  const body = await res.text();
  const json = body.startsWith('{') ? JSON.parse(body) : JSON.parse(/^data: (.*)$/m.exec(body)?.[1] ?? 'null');
  return { status: res.status, result: json?.result, body };
}
