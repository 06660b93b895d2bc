import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.js';
import { startHttp } from '../../src/main.js';
import { startSimulator, type Simulator } from '../../src/simulator/index.js';
import { tenantRuntimes, type Tenants } from '../../src/runtime/tenants.js';
import { askAs, writeTeamFiles } from '../helpers/tenants.js';

let acme: Simulator;
let globex: Simulator;
let dir: string;
let tenants: Tenants;
let server: { url: string; close: () => Promise<void> };
const keys: Record<string, string> = {};

beforeAll(async () => {
  // Two organizations, each with its own upstream, token and people.
  acme = await startSimulator({ users: 40, seed: 'acme', rateLimit: false, token: 'acme-upstream-token' });
  globex = await startSimulator({ users: 90, seed: 'globex', rateLimit: false, token: 'globex-upstream-token' });
  dir = mkdtempSync(join(tmpdir(), 'tenants-'));
  const files = writeTeamFiles(dir, acme, globex, ['acme', 'acme-eu', 'globex', 'initech', null]);
  const { tenantsFile, keysFile } = files;
  Object.assign(keys, files.keys);
  const env = { ...files.env, ANALYTICS_LOG_LEVEL: 'error' };
  const config = loadConfig(
    ['--http', '--port', '0', '--tenants-file', tenantsFile, '--api-keys-file', keysFile, '--cache-dir', 'none'],
    env,
  );
  tenants = await tenantRuntimes(config, env);
  server = await startHttp(tenants.runtimes[0]!, tenants.byName);
});
afterAll(async () => {
  await server?.close();
  await tenants?.close();
  await acme?.close();
  await globex?.close();
  rmSync(dir, { recursive: true, force: true });
});

const ask = (key: string, args: Record<string, unknown>) => askAs(server.url, key, args);

const days = (answer: any) => JSON.stringify(answer.structuredContent.days ?? answer.structuredContent);
const upstreamCalls = (sim: Simulator) => sim.requests().filter((r) => r.path.startsWith('/analytics/')).length;

describe('one server, several organizations', () => {
  it('serves each caller from its own tenant; identical questions never cross, even from the cache', async () => {
    const args = { range: 'last_7_days' };
    const a1 = await ask(keys.acme!, args);
    const a2 = await ask(keys.acme!, args);
    const g1 = await ask(keys.globex!, args);
    expect(a1.status).toBe(200);
    expect(a1.result.structuredContent.freshness.from_cache).toBe(false);
    expect(a2.result.structuredContent.freshness.from_cache).toBe(true);
    // Globex's identical question went to Globex's upstream, not to Acme's cached answer.
    expect(g1.result.structuredContent.freshness.from_cache).toBe(false);
    expect(days(g1.result)).not.toEqual(days(a1.result));
    expect(upstreamCalls(globex)).toBeGreaterThan(0);
  });

  it('two tenants with the same upstream token are the same organization and share its cache', async () => {
    const before = upstreamCalls(acme);
    const eu = await ask(keys['acme-eu']!, { range: 'last_7_days' });
    expect(eu.result.structuredContent.freshness.from_cache).toBe(true);
    expect(upstreamCalls(acme)).toBe(before);
  });

  it('refuses with 403 a caller whose tenant is unknown, or who has none, saying why', async () => {
    const unknown = await ask(keys.initech!, { range: 'last_7_days' });
    expect(unknown.status).toBe(403);
    expect(unknown.body).toContain("tenant 'initech' is not served here");
    const none = await ask(keys.none!, { range: 'last_7_days' });
    expect(none.status).toBe(403);
    expect(none.body).toContain('belongs to no tenant');
  });
});

describe('the tenants file', () => {
  it('is refused without --http and caller authentication', () => {
    expect(() => loadConfig(['--tenants-file', '/tmp/t.json'], {})).toThrow(
      /--tenants-file needs --http and caller authentication/,
    );
  });

  it('names a missing token variable and a malformed entry', async () => {
    const file = join(dir, 'bad.json');
    const load = (content: unknown, env: Record<string, string> = {}) => {
      writeFileSync(file, JSON.stringify(content));
      const config = loadConfig(['--http', '--tenants-file', file, '--api-keys-file', join(dir, 'keys.json')], {});
      return tenantRuntimes(config, env);
    };
    await expect(load({ a: { base_url: acme.url, token_env: 'NOPE_TOKEN' } })).rejects.toThrow(
      /tenant a: the variable NOPE_TOKEN/,
    );
    await expect(load({ a: { base_url: acme.url, token: 'inline-secret' } })).rejects.toThrow(/not valid at a/);
  });
});
