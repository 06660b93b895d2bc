import { randomBytes } from 'node:crypto';
import { optionsHelp } from '../config/cli-help.js';
import { readOptions, schemaOf, validateOptions } from '../config/cli-options.js';
import { SIMULATOR_COMMAND_OPTIONS } from './command-options.js';
import { startSimulator } from './index.js';
import { chartCommand } from './chart-command.js';

const COMMAND = 'org-analytics-mcp simulator';

export const SIMULATOR_HELP = `Usage: ${COMMAND} [options]

Runs a faithful simulator of the upstream analytics API on loopback, for demos and tests.

${optionsHelp(SIMULATOR_COMMAND_OPTIONS)}`;

const commandSchema = schemaOf(SIMULATOR_COMMAND_OPTIONS);

/** Bad flags or variables throw a UsageError (exit 2); a failure to start rejects with any other error (exit 1). */
export async function runSimulatorCommand(
  argv: string[],
  out: (line: string) => void,
  env: NodeJS.ProcessEnv = {},
): Promise<void> {
  const read = readOptions(SIMULATOR_COMMAND_OPTIONS, argv, env, COMMAND);
  if (read.help) return out(SIMULATOR_HELP);
  const { oauthAutoApprove, accessTokenTtlS, writeDirectory, scimPush, scimTokenEnv, ...options } = validateOptions(
    commandSchema,
    read,
    COMMAND,
  );
  if (writeDirectory !== undefined || scimPush !== undefined)
    return chartCommand({ ...options, writeDirectory, scimPush, scimTokenEnv }, out, env);
  const token = options.token ?? `sim-${randomBytes(12).toString('hex')}`;
  const sim = await startSimulator({
    ...options,
    token,
    oauth: { autoApprove: oauthAutoApprove, accessTokenTtlSeconds: accessTokenTtlS },
  });
  out(`Simulator listening on ${sim.url}`);
  out(`  analytics:  ${sim.url}/analytics/v0/...  (Authorization: Bearer <token>)`);
  out(`  changelog:  ${sim.url}/api/changelog`);
  out(`  oauth:      ${sim.authUrl}/authorize and /token (client id ${sim.oauthClientId})`);
  out(`  controls:   ${sim.url}/__sim/settings, /__sim/faults, /__sim/requests`);
  const accounts = sim.state.org.identities.filter((i) => i.kind === 'service_account').length;
  const people = sim.state.org.identities.length - accounts;
  out(`  organization: ${people} people and ${accounts} service accounts, plan ${options.plan}`);
  if (options.token === undefined) out(`  token (read+write): ${token}`);
  out(
    `Try: curl -H "Authorization: Bearer ${options.token === undefined ? token : '<token>'}" ${sim.url}/analytics/v0/dau-count`,
  );
  const stop = () => void sim.close().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}
