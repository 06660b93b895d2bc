import { writeFileSync } from 'node:fs';
import { UsageError } from '../config/cli-options.js';
import { formatDay } from '../util/utc-date.js';
import { orgChartCsv } from './data/org-chart-csv.js';
import { scimPush } from './scim-push.js';
import { stateOf } from './state.js';

interface ChartOptions {
  users: number;
  seed: string | number;
  plan: 'credits' | 'usd';
  now?: string | number;
  anchorDate?: string;
  writeDirectory?: string;
  scimPush?: string;
  scimTokenEnv: string;
}

/** `simulator --write-directory FILE` / `--scim-push URL`: the organization's chart, written or pushed, then exit. */
export async function chartCommand(
  options: ChartOptions,
  out: (line: string) => void,
  env: NodeJS.ProcessEnv,
): Promise<void> {
  const state = stateOf(options);
  const chart = state.orgChart();
  if (options.writeDirectory !== undefined) {
    writeFileSync(options.writeDirectory, orgChartCsv(chart));
    out(`Wrote ${chart.rows.length} rows (${chart.teams.length} teams) to ${options.writeDirectory}`);
  }
  if (options.scimPush !== undefined) {
    const token = env[options.scimTokenEnv];
    if (!token) throw new UsageError(`--scim-push needs the SCIM bearer token in the variable ${options.scimTokenEnv}`);
    const pushed = await scimPush(chart, {
      url: options.scimPush,
      token,
      today: formatDay(state.org.anchorDay),
      progress: (line) => process.stderr.write(`scim push: ${line}\n`),
    });
    out(`Pushed ${pushed.users} users and ${pushed.groups} groups to ${options.scimPush}`);
  }
}
