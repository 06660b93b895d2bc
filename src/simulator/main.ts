import { parseArgs } from 'node:util';
import { randomBytes } from 'node:crypto';
import { startSimulator } from './index.js';

export const SIMULATOR_HELP = `Usage: org-analytics-mcp simulator [options]

Runs a faithful simulator of the upstream analytics API on loopback, for demos and tests.

Options:
  --port N              port to listen on (default 8788; 0 picks a free one)
  --host H              address to bind (default 127.0.0.1)
  --token T             token accepted with read and write scope (default: a random one, printed)
  --read-token R        an extra token with read scope only
  --users N             size of the synthetic organization (default 800)
  --plan credits|usd    billing plan the budget endpoints enforce (default credits)
  --rate-limit on|off   enforce the documented rate limits (default on)
  --retry-after on|off  send Retry-After on 429 (default off: the spec does not promise it)
  --time-scale X        run rate-limit time X times faster (default 1)
  --seed S              seed of the synthetic organization (default northwind)
  --now ISO             freeze the clock at this instant
`;

const onOff = (value: string | undefined, name: string, fallback: boolean): boolean => {
  if (value === undefined) return fallback;
  if (value === 'on' || value === 'off') return value === 'on';
  throw new Error(`--${name} takes on or off, got '${value}'.`);
};

const numberOf = (value: string | undefined, name: string): number | undefined => {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isFinite(n)) throw new Error(`--${name} takes a number, got '${value}'.`);
  return n;
};

export async function runSimulatorCommand(argv: string[], out: (line: string) => void): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    options: {
      port: { type: 'string' },
      host: { type: 'string' },
      token: { type: 'string' },
      'read-token': { type: 'string' },
      users: { type: 'string' },
      plan: { type: 'string' },
      'rate-limit': { type: 'string' },
      'retry-after': { type: 'string' },
      'time-scale': { type: 'string' },
      seed: { type: 'string' },
      now: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) return out(SIMULATOR_HELP);
  const token = values.token ?? `sim-${randomBytes(12).toString('hex')}`;
  const plan = values.plan ?? 'credits';
  if (plan !== 'credits' && plan !== 'usd') throw new Error(`--plan takes credits or usd, got '${plan}'.`);
  const sim = await startSimulator({
    port: numberOf(values.port, 'port') ?? 8788,
    host: values.host,
    token,
    readToken: values['read-token'],
    users: numberOf(values.users, 'users'),
    plan,
    rateLimit: onOff(values['rate-limit'], 'rate-limit', true),
    retryAfter: onOff(values['retry-after'], 'retry-after', false),
    timeScale: numberOf(values['time-scale'], 'time-scale'),
    seed: values.seed,
    now: values.now,
  });
  out(`Simulator listening on ${sim.url}`);
  out(`  analytics:  ${sim.url}/analytics/v0/...  (Authorization: Bearer <token>)`);
  out(`  changelog:  ${sim.url}/api/changelog`);
  out(`  controls:   ${sim.url}/__sim/settings, /__sim/faults, /__sim/requests`);
  out(`  organization: ${sim.state.org.identities.length} identities, plan ${plan}`);
  if (values.token === undefined) out(`  token (read+write): ${token}`);
  out(`Try: curl -H "Authorization: Bearer ${values.token === undefined ? token : '<token>'}" ${sim.url}/analytics/v0/dau-count`);
  const stop = () => void sim.close().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}
