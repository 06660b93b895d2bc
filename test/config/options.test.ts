import { readFileSync } from 'node:fs';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { flagSpec } from '../../src/config/cli-help.js';
import type { Option } from '../../src/config/cli-options.js';
import { HELP, loadConfig, type Config } from '../../src/config/config.js';
import { SERVER_OPTIONS } from '../../src/config/options.js';

type Key = keyof typeof SERVER_OPTIONS;
const OPTIONS = Object.entries(SERVER_OPTIONS) as Array<[Key, Option]>;
const root = new URL('../..', import.meta.url);

/** A value other than the default for each option: [text for the flag or variable, what the config then holds]. */
const SAMPLES: Record<Key, [string, unknown]> = {
  token: ['sample-token', 'sample-token'],
  baseUrl: ['https://analytics.example.com', 'https://analytics.example.com'],
  siteUrl: ['https://www.example.com', 'https://www.example.com'],
  authUrl: ['https://id.example.com/oauth', 'https://id.example.com/oauth'],
  clientId: ['sample-client', 'sample-client'],
  credentialStore: ['file', 'file'],
  billingPlan: ['usd', 'usd'],
  readOnly: ['yes', true],
  toolsets: ['budgets, Cost', ['cost', 'budgets']],
  pii: ['pseudonymous', 'pseudonymous'],
  piiKey: ['sample-key', 'sample-key'],
  noUi: ['on', true],
  logLevel: ['debug', 'debug'],
  confirmWrites: ['never', 'never'],
  auditLog: ['/tmp/audit.jsonl', '/tmp/audit.jsonl'],
  callTimeoutS: ['7.5', 7.5],
  answerWithinS: ['12.5', 12.5],
  cacheDir: ['/tmp/oam-cache', '/tmp/oam-cache'],
  cacheMaxMb: ['64', 64],
  maxResponseMb: ['8', 8],
  redisUrl: ['redis://127.0.0.1:6379/3', 'redis://127.0.0.1:6379/3'],
  refreshHour: ['5', 5],
  warm: ['true', true],
  warmList: ['dau-count:last_7_days', 'dau-count:last_7_days'],
  demo: ['on', true],
  history: ['/tmp/oam-history.sqlite', { kind: 'sqlite', path: '/tmp/oam-history.sqlite' }],
  sync: ['on', true],
  historyDays: ['30', 30],
  historyMonths: ['0', 0],
  syncShare: ['0.5', 0.5],
  directory: ['/tmp/org.csv', '/tmp/org.csv'],
  minGroupSize: ['3', 3],
  scimTokenEnv: ['OAM_SCIM_TOKEN', 'OAM_SCIM_TOKEN'],
  alertsFile: ['/tmp/alerts.json', '/tmp/alerts.json'],
  alertsOrganization: ['Northwind', 'Northwind'],
  transport: ['1', 'http'],
  port: ['4321', 4321],
  host: ['::1', '::1'],
  publicUrl: ['https://mcp.example.com/mcp', 'https://mcp.example.com/mcp'],
  allowedHosts: ['mcp.example.com, mcp.internal:8443', ['mcp.example.com', 'mcp.internal:8443']],
  allowedOrigins: ['https://chat.example.com', ['https://chat.example.com']],
  authIssuer: ['https://id.example.com', 'https://id.example.com'],
  apiKeysFile: ['/tmp/keys.json', '/tmp/keys.json'],
  tenantsFile: ['/tmp/tenants.json', '/tmp/tenants.json'],
  tenantClaim: ['org', 'org'],
  noMetrics: ['yes', true],
  metricsTokenEnv: ['OAM_METRICS_TOKEN', 'OAM_METRICS_TOKEN'],
  metricsPort: ['9464', 9464],
};
/** Another valid value, for the flag when both are given. */
const OTHER: Record<string, string> = {
  token: 'flag-token',
  baseUrl: 'https://flag.example.com',
  siteUrl: 'https://flag.example.com',
  authUrl: 'https://flag-id.example.com/oauth',
  clientId: 'flag-client',
  credentialStore: 'keyring',
  billingPlan: 'credits',
  toolsets: 'all',
  pii: 'full',
  piiKey: 'flag-key',
  logLevel: 'warn',
  confirmWrites: 'auto',
  auditLog: '/tmp/flag.jsonl',
  callTimeoutS: '9',
  answerWithinS: '20',
  cacheDir: '/tmp/flag-cache',
  cacheMaxMb: '32',
  maxResponseMb: '16',
  redisUrl: 'redis://127.0.0.1:6379/4',
  refreshHour: '0',
  history: '/tmp/flag-history.sqlite',
  historyDays: '7',
  directory: '/tmp/other.csv',
  minGroupSize: '7',
  scimTokenEnv: 'OTHER_SCIM',
  alertsFile: '/tmp/other-alerts.json',
  alertsOrganization: 'Contoso',
  historyMonths: '3',
  syncShare: '0.25',
  warmList: 'credit-usage:last_7_days',
  port: '5555',
  host: 'localhost',
  publicUrl: 'https://flag.example.com/mcp',
  allowedHosts: 'flag.example.com',
  allowedOrigins: 'https://flag.example.com',
  authIssuer: 'https://flag-id.example.com',
  apiKeysFile: '/tmp/flag-keys.json',
  tenantsFile: '/tmp/flag-tenants.json',
  tenantClaim: 'organization',
  metricsTokenEnv: 'OTHER_METRICS',
  metricsPort: '9465',
};

const CREDENTIALS = { ANALYTICS_API_TOKEN: 'base-token', ANALYTICS_BASE_URL: 'https://base.example.com' };
const load = (argv: string[], env: NodeJS.ProcessEnv = {}) =>
  loadConfig(argv, { ...CREDENTIALS, ...env }) as Record<string, unknown>;
const flagArgs = (option: Option, text: string) =>
  option.kind === 'switch' ? [`--${option.flag}`] : [`--${option.flag}=${text}`];

describe('the table of server options', () => {
  it('gives every option its own flag and its own ANALYTICS_ variable', () => {
    expect(Object.keys(SAMPLES).sort()).toEqual(OPTIONS.map(([key]) => key).sort());
    for (const [, o] of OPTIONS) expect(o.env).toMatch(/^ANALYTICS_[A-Z_]+$/);
    expect(new Set(OPTIONS.map(([, o]) => o.flag)).size).toBe(OPTIONS.length);
    expect(new Set(OPTIONS.map(([, o]) => o.env)).size).toBe(OPTIONS.length);
  });

  it('generates --help listing every option with its flag, variable and default', () => {
    for (const [, o] of OPTIONS)
      expect(HELP).toMatch(
        new RegExp(`^  ${escape(flagSpec(o))} +${o.env}\\n[^]*?\\(default: ${escape(o.shown)}\\)`, 'm'),
      );
  });

  it('gives every description in --help, and warns there that other local users can see a secret given as a flag', () => {
    const flat = HELP.replace(/\s+/g, ' ');
    for (const [, o] of OPTIONS) expect(flat).toContain(`${o.help} (default: ${o.shown})`);
    for (const o of [SERVER_OPTIONS.token, SERVER_OPTIONS.piiKey])
      expect(o.help).toMatch(/prefer the variable: other local users can see a command line/);
  });

  it.each(OPTIONS)('reads %s from its flag and from its variable, and the flag wins', (key, option) => {
    const [text, value] = SAMPLES[key];
    expect(load(flagArgs(option, text))[key]).toEqual(value);
    expect(load([], { [option.env]: text })[key]).toEqual(value);
    if (option.kind === 'switch') {
      expect(load(flagArgs(option, text), { [option.env]: 'off' })[key]).toEqual(value);
    } else {
      expect(load(flagArgs(option, OTHER[key]!), { [option.env]: text })[key]).not.toEqual(value);
      expect(load(flagArgs(option, text), { [option.env]: OTHER[key]! })[key]).toEqual(value);
    }
  });

  it.each(['true', '1', 'yes', 'on', 'TRUE', ' On '])('reads %j in a switch variable as on', (text) => {
    expect(load([], { ANALYTICS_READ_ONLY: text }).readOnly).toBe(true);
  });

  it.each(['false', '0', 'no', 'off', 'Off', ''])('reads %j in a switch variable as off', (text) => {
    expect(load([], { ANALYTICS_READ_ONLY: text }).readOnly).toBe(false);
  });

  it.each([
    [[], { ANALYTICS_READ_ONLY: 'maybe' }, /ANALYTICS_READ_ONLY takes on or off/],
    [['--port', 'abc'], {}, /--port takes a number, got 'abc'/],
    [[], { ANALYTICS_PORT: '70000' }, /ANALYTICS_PORT must be at most 65535/],
    [
      [],
      { ANALYTICS_CONFIRM_WRITES: 'sometimes' },
      /ANALYTICS_CONFIRM_WRITES takes auto, always or never, got 'sometimes'/,
    ],
    [['--log-level', 'loud'], {}, /--log-level takes error, warn, info or debug/],
    [['--refresh-hour', '24'], {}, /--refresh-hour \/ ANALYTICS_REFRESH_HOUR must be 0 to 23/],
    [[], { ANALYTICS_REFRESH_HOUR: '2.5' }, /ANALYTICS_REFRESH_HOUR must be a whole number of hours \(UTC\), 0 to 23/],
  ])('refuses %j %j naming where the bad value came from, and points to --help', (argv, env, message) => {
    expect(() => load(argv as string[], env)).toThrow(message);
    expect(() => load(argv as string[], env)).toThrow(/Run org-analytics-mcp --help for the options\./);
  });

  it.each([
    [[], {}, { kind: 'auto' }],
    [['--history', ' AUTO '], {}, { kind: 'auto' }],
    [[], { ANALYTICS_HISTORY: 'None' }, { kind: 'none' }],
    [['--history', 'store/history.sqlite'], {}, { kind: 'sqlite', path: 'store/history.sqlite' }],
    [['--history', 'postgres://u@db:5432/oam'], {}, { kind: 'postgres', url: 'postgres://u@db:5432/oam' }],
    [[], { ANALYTICS_HISTORY: 'PostgreSQL://db/oam' }, { kind: 'postgres', url: 'PostgreSQL://db/oam' }],
  ])('reads --history %j %j once, into where the store is', (argv, env, where) => {
    expect(load(argv as string[], env).history).toEqual(where);
  });

  it.each([
    [['--history='], {}, /--history must not be empty\./],
    [['--history', '   '], {}, /--history must not be empty\./],
    [
      ['--history', 'https://db.example.com/oam'],
      {},
      /takes auto, none, a file path or a postgres:\/\/ URL, got a https:\/\/ URL\./,
    ],
    [
      [],
      { ANALYTICS_HISTORY: 'mysql://db/oam' },
      /--history \/ ANALYTICS_HISTORY takes auto, none, a file path or a postgres:\/\/ URL, got a mysql:\/\/ URL\./,
    ],
  ])('refuses --history %j %j, saying what it takes, and points to --help', (argv, env, message) => {
    expect(() => load(argv as string[], env)).toThrow(message);
    expect(() => load(argv as string[], env)).toThrow(/Run org-analytics-mcp --help for the options\./);
  });

  it('guarantees a base URL, and a token or a login, outside demo mode, in the type as at run time', () => {
    const config: Config = loadConfig(['--api-token', 't', '--base-url', 'https://x.example.com'], {});
    if (!config.demo && !config.login) expectTypeOf(config.token).toEqualTypeOf<string>();
    if (!config.demo) expectTypeOf(config.baseUrl).toEqualTypeOf<string>();
    expect(config).toMatchObject({ demo: false, token: 't', baseUrl: 'https://x.example.com' });
    expect(() => loadConfig(['--api-token', 't'], {})).toThrow(/^ANALYTICS_BASE_URL is not set/);
    const demo = loadConfig([], { ANALYTICS_DEMO: 'true' });
    expect(demo.demo).toBe(true);
    expect(demo.token).toBeUndefined();
  });

  it('uses a login when no token is set and the sign-in service and client are, and names what is missing', () => {
    const env = { ANALYTICS_BASE_URL: 'https://x.example.com', ANALYTICS_AUTH_URL: 'https://id.example.com/oauth' };
    expect(loadConfig([], { ...env, ANALYTICS_CLIENT_ID: 'c' })).toMatchObject({
      token: undefined,
      login: { authUrl: 'https://id.example.com/oauth', clientId: 'c' },
    });
    expect(() => loadConfig([], env)).toThrow(/also set ANALYTICS_CLIENT_ID/);
    // A token wins: the login is for when there is none.
    expect(loadConfig(['--api-token', 't'], { ...env, ANALYTICS_CLIENT_ID: 'c' }).login).toBeUndefined();
    expect(() => loadConfig([], {})).toThrow(/or sign in as yourself/);
  });
});

describe('the README and manifest.json follow the table', () => {
  const readme = readFileSync(new URL('README.md', root), 'utf8');
  const section = readme.slice(
    readme.indexOf('## Configuration'),
    readme.indexOf('\n## ', readme.indexOf('## Configuration') + 1),
  );
  const cells = (line: string) =>
    line
      .split(/(?<!\\)\|/)
      .slice(1, -1)
      .map((c) => c.trim().replaceAll('`', '').replaceAll('\\|', '|'));
  const rows = section
    .split('\n')
    .filter((l) => l.startsWith('|'))
    .slice(2)
    .map(cells);
  // The proxy variables are read by the HTTP stack, not by us: they have no flag and no row in the table.
  const PROXY_ROW = 'HTTPS_PROXY, HTTP_PROXY, NO_PROXY';

  it('the README Configuration table has one row per option: flag, variable and default', () => {
    expect(rows.length).toBeGreaterThan(0);
    for (const [, o] of OPTIONS) {
      const row = rows.find((r) => r[1] === o.env);
      expect(row, o.env).toBeDefined();
      expect(row![0], o.env).toBe(flagSpec(o));
      expect(row![3], o.env).toBe(o.shown);
    }
    const known = new Set([...OPTIONS.map(([, o]) => o.env), PROXY_ROW]);
    expect(rows.map((r) => r[1]).filter((env) => !known.has(env!))).toEqual([]);
  });

  const manifest = JSON.parse(readFileSync(new URL('manifest.json', root), 'utf8')) as {
    server: { mcp_config: { env: Record<string, string> } };
    user_config: Record<string, { type: string; required?: boolean; default?: unknown }>;
  };

  it('every manifest variable is an option fed from the user_config entry the table names', () => {
    const byEnv = new Map(OPTIONS.map(([, o]) => [o.env, o]));
    for (const [env, value] of Object.entries(manifest.server.mcp_config.env)) {
      expect(byEnv.has(env), env).toBe(true);
      expect(value, env).toBe(`\${user_config.${byEnv.get(env)!.manifest}}`);
    }
  });

  it('every user_config entry belongs to an option the table exposes, and every exposed option has one', () => {
    const exposed = OPTIONS.filter(([, o]) => o.manifest);
    expect(Object.keys(manifest.user_config).sort()).toEqual(exposed.map(([, o]) => o.manifest).sort());
    for (const [key, o] of exposed) {
      const entry = manifest.user_config[o.manifest!]!;
      expect(manifest.server.mcp_config.env[o.env], o.env).toBe(`\${user_config.${o.manifest}}`);
      expect(entry.type, key).toBe(o.kind === 'switch' ? 'boolean' : o.kind === 'number' ? 'number' : 'string');
      // An optional entry left unset must still substitute something the option accepts.
      if (!entry.required) {
        expect(entry.default, key).toBeDefined();
        // An empty token means "use the login", which the sign-in service and client then name.
        const login = { ANALYTICS_AUTH_URL: 'https://id.example.com', ANALYTICS_CLIENT_ID: 'c' };
        expect(() => load([], { ...login, [o.env]: String(entry.default) }), key).not.toThrow();
      }
    }
  });
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
