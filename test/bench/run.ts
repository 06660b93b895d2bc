import { performance } from 'node:perf_hooks';
import { benchAdoption } from './adoption.bench.js';
import { benchColdStartSideBySide } from './cold-start.bench.js';
import { benchComposite } from './composite.bench.js';
import { benchHistory } from './history/history.bench.js';
import { benchFirstHour } from './history/first-hour.bench.js';
import { benchHttpThroughput } from './http-throughput.bench.js';
import { benchLargeOrg } from './large-org.bench.js';
import { benchAnswerSizes } from './mcp.bench.js';
import { benchSimulator } from './simulator.bench.js';
import { benchStartup } from './startup.bench.js';
import { benchUpstream } from './upstream.bench.js';
import { benchViews } from './views.bench.js';
import { benchExport } from './export.bench.js';
import { benchAnomalies } from './anomalies.bench.js';
import { benchInactive } from './inactive.bench.js';
import { benchTeams } from './teams.bench.js';
import { benchTelemetry } from './telemetry.bench.js';
import { benchAlerts } from './alerts/alerts.bench.js';

type Print = (line: string) => void;

// `--quick` (or BENCH_QUICK=1) leaves out the benches that page a 10,000-person organization at the
// documented rate limits: they are most of the run's time.
const quick = process.argv.includes('--quick') || process.env.BENCH_QUICK === '1';
const benches: Array<[name: string, run: (print: Print) => Promise<void>, largeOrg: boolean]> = [
  ['start-up', benchStartup, false],
  ['cold start side by side', benchColdStartSideBySide, false],
  ['answer sizes', benchAnswerSizes, false],
  ['simulator', benchSimulator, false],
  ['upstream paging', benchUpstream, false],
  ['HTTP throughput', benchHttpThroughput, false],
  // Issue 36: cached calls with telemetry on (metrics and traces) against off.
  ['telemetry', benchTelemetry, false],
  ['large organization', benchLargeOrg, true],
  ['composite answers', benchComposite, true],
  ['views', benchViews, false],
  ['export', benchExport, false],
  // Issue 23's figures: it shortens itself with --quick (10,000 people, a week synced and copied to 90 days).
  ['history', benchHistory, false],
  // Issue 32: a new install's default questions answered from the store, at the documented limits (1,500 people;
  // 10,000 too without --quick: some 10 minutes).
  ['first hour', benchFirstHour, false],
  // Issue 24's get_adoption: 10,000 people (BENCH_ADOPTION_SIZES=10000,50000 adds 50,000).
  ['adoption', benchAdoption, false],
  // Issue 24: find_anomalies from the store at 10,000 people (BENCH_ANOMALY_SIZES=10000,50000 adds 50,000).
  ['anomalies', benchAnomalies, false],
  // Issue 24: find_inactive_people from the store (BENCH_INACTIVE_SIZES=10000,50000 adds 50,000).
  ['inactive people', benchInactive, false],
  // Issue 34: teams from the store, the directory file, a SCIM push (BENCH_TEAMS_SIZES=50000 for the goal's size).
  ['teams', benchTeams, false],
  // Issue 35: the alerts outbox to a local receiver (BENCH_ALERTS_DRAIN=N for another drain size).
  ['alerts', benchAlerts, false],
];
// `--only NAME` (repeatable, or BENCH_ONLY=a,b) runs only the benches whose name contains one of them.
const only = [
  ...process.argv.flatMap((a, i) => (a === '--only' ? [process.argv[i + 1] ?? ''] : [])),
  ...(process.env.BENCH_ONLY ?? '').split(',').filter(Boolean),
];

// Figures, not pass/fail: each bench prints what it measured.
const print: Print = (line) => process.stdout.write(`${line}\n`);
print(`node ${process.version}, ${new Date().toISOString()}`);
print(
  quick
    ? 'quick run: about 2 minutes on a 2-core machine, without the 10,000-person benches (`npm run bench` has them, about 16 minutes), then the history figures at 10,000 people (a week synced, about 5 minutes)'
    : 'full run: about 16 minutes on a 2-core machine, 14 of them paging a 10,000-person organization at the documented limits (`npm run bench:quick` leaves those out: about 2 minutes), then the history figures at 10,000 and 50,000 people (an hour or more: 90 days synced at 10,000)',
);
const started = performance.now();
for (const [name, run, largeOrg] of benches) {
  if (quick && largeOrg) continue;
  if (only.length && !only.some((o) => name.includes(o))) continue;
  const t = performance.now();
  await run(print);
  print(`  (${name}: ${((performance.now() - t) / 1000).toFixed(0)} s)`);
}
print(`done in ${((performance.now() - started) / 60_000).toFixed(1)} minutes`);
