import { readFileSync } from 'node:fs';
import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import type { Option } from '../../src/config/cli-options.js';
import { HTTP_OPTIONS } from '../../src/config/options-http.js';
import { SERVER_OPTIONS } from '../../src/config/options.js';

const root = new URL('../..', import.meta.url);
const json = (path: string) => JSON.parse(readFileSync(new URL(path, root), 'utf8'));
/** The MCP Registry's server.json schema as published (static.modelcontextprotocol.io, 2025-12-11; draft-07). */
const schema = json('test/e2e/server.schema.json');
const entry = json('.ci/server.json');
const pkg = json('package.json');
const manifest = json('manifest.json');

const validate = (() => {
  // strict: false for the schema's OpenAPI annotations (example); its one format, uri, is checked as a URL.
  const ajv = new Ajv({ allErrors: true, strict: false });
  ajv.addFormat('uri', (text: string) => URL.canParse(text));
  return ajv.compile(schema);
})();

/**
 * What the registry entry must say about each variable, generated from the options table: every option but
 * those of serving over HTTP, since the entry describes the stdio package (a team server is deployed, not installed).
 */
function expectedVariables() {
  return (Object.entries(SERVER_OPTIONS) as Array<[string, Option]>)
    .filter(([key]) => !(key in HTTP_OPTIONS))
    .map(([, o]) => ({
      name: o.env,
      description: o.help.replace(/; prefer the variable.*$/, ''),
      isRequired: o.manifest ? manifest.user_config[o.manifest].required === true : false,
      isSecret: o.secret === true,
      ...(o.kind === 'switch' ? { format: 'boolean' } : o.kind === 'number' ? { format: 'number' } : {}),
      ...(o.choices ? { choices: [...o.choices] } : {}),
    }));
}

describe('.ci/server.json, the MCP Registry entry', () => {
  it('validates against the registry schema it names', () => {
    expect(entry.$schema).toBe(schema.$id);
    expect(validate(entry), JSON.stringify(validate.errors, null, 2)).toBe(true);
  });

  it('is refused by the same schema when it breaks the registry rules, so the check above can fail', () => {
    expect(validate({ ...entry, name: 'org-analytics-mcp' })).toBe(false);
    expect(validate({ ...entry, description: 'x'.repeat(101) })).toBe(false);
    expect(validate({ ...entry, packages: [{ ...entry.packages[0], version: 'latest' }] })).toBe(false);
  });

  it('has the reverse-DNS name that package.json declares as mcpName', () => {
    expect(entry.name).toMatch(/^io\.github\.[A-Za-z0-9-]+\/org-analytics-mcp$/);
    expect(pkg.mcpName).toBe(entry.name);
  });

  it('names the npm package at the version of package.json and manifest.json, over stdio', () => {
    expect(entry.version).toBe(pkg.version);
    expect(manifest.version).toBe(pkg.version);
    expect(entry.packages).toHaveLength(1);
    expect(entry.packages[0]).toMatchObject({
      registryType: 'npm',
      identifier: pkg.name,
      version: pkg.version,
      transport: { type: 'stdio' },
    });
    expect(pkg.bin).toHaveProperty(pkg.name);
  });

  it('lists the environment variables of the options table, with what is required and what is secret', () => {
    expect(entry.packages[0].environmentVariables).toEqual(expectedVariables());
    const secrets = entry.packages[0].environmentVariables.filter((v: { isSecret: boolean }) => v.isSecret);
    expect(secrets.map((v: { name: string }) => v.name)).toContain('ANALYTICS_API_TOKEN');
  });

  it('agrees with manifest.json: the bundle passes the same variables, sensitive where the entry says secret', () => {
    const variables = new Map<string, { isSecret: boolean }>(
      entry.packages[0].environmentVariables.map((v: { name: string; isSecret: boolean }) => [v.name, v]),
    );
    for (const [env, value] of Object.entries(manifest.server.mcp_config.env as Record<string, string>)) {
      expect(variables.has(env), env).toBe(true);
      const key = /^\$\{user_config\.(\w+)\}$/.exec(value)![1]!;
      expect(manifest.user_config[key].sensitive === true, env).toBe(variables.get(env)!.isSecret);
    }
  });
});
