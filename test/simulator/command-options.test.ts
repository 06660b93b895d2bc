import { describe, expect, it } from 'vitest';
import { flagSpec } from '../../src/config/cli-help.js';
import { readOptions, schemaOf, validateOptions, type Option } from '../../src/config/cli-options.js';
import { SIMULATOR_COMMAND_OPTIONS } from '../../src/simulator/command-options.js';
import { SIMULATOR_HELP } from '../../src/simulator/main.js';

type Key = keyof typeof SIMULATOR_COMMAND_OPTIONS;
const OPTIONS = Object.entries(SIMULATOR_COMMAND_OPTIONS) as Array<[Key, Option]>;
const COMMAND = 'org-analytics-mcp simulator';
const load = (argv: string[], env: NodeJS.ProcessEnv = {}) =>
  validateOptions(
    schemaOf(SIMULATOR_COMMAND_OPTIONS),
    readOptions(SIMULATOR_COMMAND_OPTIONS, argv, env, COMMAND),
    COMMAND,
  ) as Record<string, unknown>;

/** [a value other than the default, what the options then hold, another valid value for the flag]. */
const SAMPLES: Record<Key, [string, unknown, string]> = {
  port: ['0', 0, '9999'],
  host: ['::1', '::1', 'localhost'],
  token: ['tok', 'tok', 'other'],
  readToken: ['ro', 'ro', 'other'],
  users: ['40', 40, '50'],
  plan: ['usd', 'usd', 'credits'],
  rateLimit: ['off', false, 'on'],
  retryAfter: ['on', true, 'off'],
  timeScale: ['60', 60, '2'],
  seed: ['s1', 's1', 's2'],
  now: ['2026-03-01T12:00:00Z', '2026-03-01T12:00:00Z', '2026-04-01T12:00:00Z'],
  oauthAutoApprove: ['on', true, 'off'],
  accessTokenTtlS: ['60', 60, '120'],
  writeDirectory: ['/tmp/org.csv', '/tmp/org.csv', '/tmp/other.csv'],
  scimPush: ['http://127.0.0.1:1/scim/v2', 'http://127.0.0.1:1/scim/v2', 'https://example.com/scim/v2'],
  scimTokenEnv: ['MY_SCIM', 'MY_SCIM', 'OTHER_SCIM'],
};
/** A bare switch takes no value on the command line: giving it turns it on. */
const flagArgs = (option: Option, text: string) =>
  option.kind === 'switch' && !option.value ? [`--${option.flag}`] : [`--${option.flag}=${text}`];

describe('the table of simulator options', () => {
  it('gives every option its own flag and its own ANALYTICS_SIM_ variable', () => {
    expect(Object.keys(SAMPLES).sort()).toEqual(OPTIONS.map(([key]) => key).sort());
    for (const [, o] of OPTIONS) {
      // A duration's variable names its unit, as the server's ANALYTICS_CALL_TIMEOUT_S does.
      const unit = o.value === 'SECONDS' ? '_S' : '';
      expect(o.env).toBe(`ANALYTICS_SIM_${o.flag.toUpperCase().replaceAll('-', '_')}${unit}`);
    }
  });

  it('generates --help listing every option with its flag, variable, description and default', () => {
    const flat = SIMULATOR_HELP.replace(/\s+/g, ' ');
    for (const [, o] of OPTIONS) expect(flat).toContain(`${flagSpec(o)} ${o.env} ${o.help} (default: ${o.shown})`);
  });

  it.each(OPTIONS)('reads %s from its flag and from its variable, and the flag wins', (key, option) => {
    const [text, value, other] = SAMPLES[key];
    expect(load(flagArgs(option, text))[key]).toEqual(value);
    expect(load([], { [option.env]: text })[key]).toEqual(value);
    expect(load(flagArgs(option, text), { [option.env]: other })[key]).toEqual(value);
    if (option.kind === 'switch' && !option.value) return;
    expect(load(flagArgs(option, other), { [option.env]: text })[key]).not.toEqual(value);
  });

  it.each([
    [[], { ANALYTICS_SIM_PLAN: 'gold' }, /ANALYTICS_SIM_PLAN takes credits or usd, got 'gold'/],
    [[], { ANALYTICS_SIM_RATE_LIMIT: 'maybe' }, /ANALYTICS_SIM_RATE_LIMIT takes on or off/],
    [['--users', '0'], {}, /--users must be at least 1/],
    [['--time-scale', 'fast'], {}, /--time-scale takes a number, got 'fast'/],
    [['--access-token-ttl', '0'], {}, /--access-token-ttl must be at least 1/],
    [[], { ANALYTICS_SIM_OAUTH_AUTO_APPROVE: 'maybe' }, /ANALYTICS_SIM_OAUTH_AUTO_APPROVE takes on or off/],
  ])('refuses %j %j naming where the bad value came from, and points to --help', (argv, env, message) => {
    expect(() => load(argv as string[], env)).toThrow(message);
    expect(() => load(argv as string[], env)).toThrow(/Run org-analytics-mcp simulator --help for the options\./);
  });
});
