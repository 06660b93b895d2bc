import { EXIT_FAILURE } from '../config/cli-options.js';
import { destinationSecrets, loadDestinations, type Destination } from '../alerts/destinations.js';
import { deliverDue } from '../alerts/deliver.js';
import { outboxStatus, recentAlerts } from '../history/store/outbox/outbox-read.js';
import type { Runtime } from '../runtime/runtime.js';
import { runOneShot, usageError, type OneShot } from './command-opening.js';
import { sendSamples } from './alerts-test.js';

export const ALERTS_HELP = `Usage: org-analytics-mcp alerts test [--destination NAME] [server options]
       org-analytics-mcp alerts deliver [server options]
       org-analytics-mcp alerts status [server options]

The alerts a sync decides wait in an outbox in the history store until their destinations (--alerts-file FILE)
answer. Any sync, a --sync server and this command deliver them.

  test      send a sample of each event kind (as alert.test) to each destination, or NAME's, now, without the
            outbox, and print each delivery's outcome; exit 1 when one was not delivered
  deliver   try every queued alert at once, whatever its backoff, then exit; exit 1 when one is still queued
  status    print the outbox: per destination, what is queued, delivered and failed, and the last alerts

Server options (--alerts-file, --history, the API's): see org-analytics-mcp --help.
`;

const SUBCOMMANDS = ['test', 'deliver', 'status'] as const;
type Sub = (typeof SUBCOMMANDS)[number];
interface AlertsArgs {
  sub: Sub;
  destination?: string;
}

function readArgs(argv: string[]): { args: AlertsArgs; rest: string[] } {
  const [sub, ...rest] = argv;
  if (!SUBCOMMANDS.includes(sub as Sub)) throw usageError('alerts', 'say alerts test, alerts deliver or alerts status');
  const at = rest.findIndex((a) => a === '--destination' || a.startsWith('--destination='));
  if (at < 0) return { args: { sub: sub as Sub }, rest };
  if (sub !== 'test') throw usageError('alerts', '--destination is for alerts test');
  const inline = rest[at]!.includes('=');
  const destination = inline ? rest[at]!.slice('--destination='.length) : rest[at + 1];
  if (!destination) throw usageError('alerts', '--destination takes a destination name');
  return { args: { sub: sub as Sub, destination }, rest: rest.filter((_, i) => i !== at && (inline || i !== at + 1)) };
}

const ALERTS = {
  name: 'alerts',
  help: ALERTS_HELP,
  args: readArgs,
  history: {
    needs: (why) => `alerts reads the outbox in the history store, and ${why}`,
    unopened: 'no history store could be opened: see the log above for why',
  },
} satisfies OneShot<AlertsArgs>;

/** The destinations of --alerts-file, their secrets added to what logs mask. */
export function destinationsOf(runtime: Runtime, env: NodeJS.ProcessEnv): Destination[] {
  const file = runtime.config.alertsFile;
  if (!file) throw usageError('alerts', 'no destinations: give --alerts-file FILE (or ANALYTICS_ALERTS_FILE)');
  const destinations = loadDestinations(file, env);
  runtime.secrets.push(...destinationSecrets(destinations));
  return destinations;
}

const at = (ms: number | null) => (ms === null ? '-' : new Date(ms).toISOString().replace('.000Z', 'Z'));

/** `org-analytics-mcp alerts test|deliver|status`: the exit code. */
export async function runAlertsCommand(
  argv: string[],
  env: NodeJS.ProcessEnv,
  print: (line: string) => void = (line) => process.stdout.write(`${line}\n`),
): Promise<number> {
  return runOneShot(ALERTS, argv, env, async ({ args, runtime, history, say, signal }) => {
    const store = history.source.store;
    if (args.sub === 'status') {
      const status = await outboxStatus(store);
      if (status.length === 0) print('the outbox is empty');
      for (const s of status)
        print(
          `${s.destination}: ${s.queued} queued, ${s.delivered} delivered, ${s.failed} failed` +
            (s.queued ? ` (oldest ${at(s.oldestQueuedAt)}, next attempt ${at(s.nextAttemptAt)})` : ''),
        );
      // Dedup keys name people: under --pii pseudonymous they are shown as pseudonyms, as everything else is.
      for (const a of await recentAlerts(store, 20))
        print(
          runtime.pii.text(
            `  ${at(a.createdAt)} ${a.destination} ${a.dedupKey} ${a.state}, ${a.attempts} attempts` +
              (a.lastError && a.state !== 'delivered' ? `: ${a.lastError}` : ''),
          ),
        );
      return 0;
    }
    const destinations = destinationsOf(runtime, env);
    if (args.sub === 'test') return sendSamples(destinations, args.destination, runtime, print);
    const report = await deliverDue(store, destinations, { log: runtime.log, all: true, signal });
    say(`${report.delivered} delivered, ${report.retried} still queued, ${report.failed} failed`);
    return report.retried ? EXIT_FAILURE : 0;
  });
}
