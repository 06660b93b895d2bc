import { count } from '../format/text.js';
import { realpathSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/client';
import { InMemoryTransport } from '@modelcontextprotocol/server';
import { configSchema } from '../config/config.js';
import type { Runtime } from '../runtime/runtime.js';
import type { RuntimeHistory } from '../history/serving/runtime-history.js';
import { DEMO_SYNC, syncOnce } from '../history/sync/sync-run.js';
import { createServer } from '../mcp/server.js';
import type { Organization } from '../simulator/data/organization.js';
import { runOneShot, type OneShot } from './command-opening.js';

/** The demo, with a fresh embedded simulator; Ctrl-C ends it at once (it writes nothing). */
const TOUR = {
  name: 'tour',
  config: configSchema.parse({ demo: true, logLevel: 'warn', toolsets: 'all' }),
  stops: false,
} satisfies OneShot;

const QUESTIONS: Array<[string, string, Record<string, unknown>]> = [
  ['Who used the most credits last month?', 'get_credit_usage', { range: 'previous_month', limit: 10 }],
  ['How did daily active users develop over 30 days?', 'get_active_user_counts', { range: 'last_30_days' }],
  ['What did each model cost last month?', 'get_cost_analytics', { range: 'previous_month', group_by: ['resource'] }],
  [
    'Which teams used it most last month (top level)?',
    'get_user_activity',
    { range: 'previous_month', group_by: 'team:1', metrics: ['total_messages'], limit: 3 },
  ],
  ['What do we charge each cost center for last month?', 'get_chargeback', {}],
  ['Which editors were most used yesterday?', 'get_editor_language_activity', { group_by: 'editor' }],
  ['Who is about to hit their budget this month?', 'get_budget_status', { limit: 5 }],
  [
    'Who has stopped using it (seats to reclaim)?',
    'find_inactive_people',
    { inactive_days: 14, lookback_days: 45, limit: 5 },
  ],
  ['What was unusual in the last 30 days?', 'find_anomalies', { limit: 5 }],
  ['How is adoption growing, month by month?', 'get_adoption', { granularity: 'month' }],
];

/** Who the simulator holds: its users (former members among them) and service accounts. */
function organization(org: Organization): string {
  const people = org.identities.filter((i) => i.kind === 'user');
  const former = people.filter((i) => i.leaveDay <= org.anchorDay).length;
  return `${count(people.length, 'person', 'people')} (${former} of them former members) and ${count(org.identities.length - people.length, 'service account')}`;
}

async function fillHistory(runtime: Runtime, history: RuntimeHistory): Promise<string> {
  const started = Date.now();
  const outcome = await syncOnce(runtime.client, history.source, DEMO_SYNC, {});
  if (!outcome.ran) return `History store: ${outcome.reason}.`;
  const { blocks, requests } = outcome.result;
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  return (
    `History store: ${DEMO_SYNC.historyDays} days and ${DEMO_SYNC.historyMonths} months synced in ${seconds} s ` +
    `(${count(blocks, 'block')}, ${count(requests, 'request')}); the answers below come from it ("from the history store").`
  );
}

/** The absolute path of the running dist/cli.js (through any npm link), for a command that works as printed. */
function thisCli(): string {
  const argv1 = process.argv[1];
  return argv1 ? realpathSync(argv1) : 'dist/cli.js';
}

const shellWord = (word: string) => (/^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`);

/** A guided run: the embedded simulator, the real server, a real MCP client, ten typical questions (two by team). */
export async function runTour(print: (line: string) => void): Promise<void> {
  await runOneShot(TOUR, [], process.env, async ({ runtime, history }) => {
    await showTour(runtime, history, print);
    return 0;
  });
}

async function showTour(runtime: Runtime, history: RuntimeHistory | undefined, print: (line: string) => void) {
  const server = createServer(runtime);
  const [serverSide, clientSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'org-analytics-mcp tour', version: '1.0.0' });
  await client.connect(clientSide);
  try {
    const { tools } = await client.listTools();
    print(
      `org-analytics-mcp: ${tools.length} tools against a simulated organization of ${organization(runtime.simulator!.state.org)} (${runtime.simulator!.url})\n`,
    );
    for (const t of tools) print(`  ${t.name.padEnd(30)} ${t.title ?? ''}`);
    if (history) {
      print(
        `\nSyncing the history store: the last ${DEMO_SYNC.historyDays} days and ${DEMO_SYNC.historyMonths} months…`,
      );
      print(await fillHistory(runtime, history));
    }
    const offered = new Set(tools.map((t) => t.name));
    for (const [question, name, args] of QUESTIONS.filter(([, name]) => offered.has(name))) {
      print(`\n> ${question}\n  ${name} ${JSON.stringify(args)}`);
      const result = await client.callTool({ name, arguments: args });
      const text = (result.content as Array<{ type: string; text?: string }>).map((c) => c.text ?? '').join('\n');
      print(
        text
          .split('\n')
          .map((l) => `  ${l}`)
          .join('\n'),
      );
    }
    print(`
Connect an assistant to the same demo over stdio. For example, with Claude Code:
  claude mcp add org-analytics -- node ${shellWord(thisCli())} --demo
After \`npm link\` in the clone, \`org-analytics-mcp --demo\` works too (npx only once the package is on npm).
Against your organization: set ANALYTICS_API_TOKEN and ANALYTICS_BASE_URL and drop --demo, or sign in as yourself
(ANALYTICS_AUTH_URL, ANALYTICS_CLIENT_ID, then org-analytics-mcp login; try the sign-in with login --demo). See README.md.`);
  } finally {
    await client.close();
  }
}
