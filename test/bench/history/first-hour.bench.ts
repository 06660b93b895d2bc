import { RATE_LIMITS } from '../../../src/contract/limits.js';
import { syncOnce } from '../../../src/history/sync/sync-run.js';
import { costAnalytics } from '../../../src/upstream/endpoints/cost-analytics.js';
import { creditUsageByUser } from '../../../src/upstream/endpoints/credit-usage-by-user.js';
import { dauCount } from '../../../src/upstream/endpoints/dau-count.js';
import { userActivity } from '../../../src/upstream/endpoints/user-activity.js';
import { DEFAULT_LIMITS } from '../../../src/upstream/limits/limits-config.js';
import { goalLine } from '../goal.js';
import { historyRig } from './history-fixture.js';
import { GROUPS, groupOfPath } from './history-sync.js';

type Print = (line: string) => void;

const RANGES = ['last_7_days', 'last_30_days', 'last_90_days'] as const;
/** The default questions: each a listing and its arguments, as the tools ask them. */
const QUESTIONS: Array<{ name: string; listing: unknown; args: Record<string, unknown> }> = [
  ...RANGES.flatMap((range) => [
    { name: `user activity, ${range}`, listing: userActivity, args: { range } },
    { name: `credits by user, ${range}`, listing: creditUsageByUser, args: { range } },
    {
      name: `cost by user, ${range}`,
      listing: costAnalytics,
      args: { range, group_by_keys: ['COST_ANALYTICS_GROUP_BY_USER'] },
    },
  ]),
  { name: 'active user counts, last_90_days', listing: dauCount, args: { range: 'last_90_days' } },
];
const POLL_MS = 1_000;
/** Past this, the bench stops waiting and says which questions were still not answerable. */
const GIVE_UP_MIN = 60;

/**
 * Issue 32: a new install with the default store (a SQLite file, 90 days, 24 months, --sync-share 0.8) against
 * the simulator at the documented limits (the simulator enforces them, the client keeps DEFAULT_LIMITS): minutes
 * from the first sync's start until each default question answers from the store (polled every second, asking
 * the store only), against T_min, the time the range pages they need take at the full documented rate (the
 * slowest group's). `BENCH_FIRST_HOUR_SIZES=1500,10000` picks the sizes (default: 1,500; 10,000 too without --quick).
 */
export async function benchFirstHour(print: Print): Promise<void> {
  const quick = process.argv.includes('--quick') || process.env.BENCH_QUICK === '1';
  const sizes = (process.env.BENCH_FIRST_HOUR_SIZES ?? (quick ? '1500' : '1500,10000')).split(',').map(Number);
  print('the first hour from the store (issue 32), a new install at the documented limits:');
  for (const users of sizes) await firstHour(users, print);
}

async function firstHour(users: number, print: Print): Promise<void> {
  const rig = await historyRig({ users, rateLimit: true, client: { limits: DEFAULT_LIMITS } });
  const people = `${users.toLocaleString('en-US')} people`;
  try {
    rig.sim.clearRequests();
    const stop = new AbortController();
    let said: string | undefined;
    const t0 = performance.now();
    const sync = syncOnce(
      rig.client,
      rig.history.source,
      { historyDays: 90, historyMonths: 24, syncShare: 0.8 },
      { signal: stop.signal, onProgress: (line) => (line.answerable ? (said = line.text) : undefined) },
    );
    const answered = new Map<string, number>();
    while (answered.size < QUESTIONS.length && performance.now() - t0 < GIVE_UP_MIN * 60_000) {
      for (const q of QUESTIONS)
        if (!answered.has(q.name) && (await rig.client.stored(q.listing as never, q.args as never)))
          answered.set(q.name, (performance.now() - t0) / 60_000);
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
    stop.abort();
    const outcome = await sync;
    if (!outcome.ran) throw new Error(outcome.reason);
    const { byGroup } = outcome.result;
    const tooMany = rig.sim.requests().filter((r) => r.status === 429).length;
    // T_min: the first tasks' requests (range blocks with their pages, the daily series' newest window) at the full rate.
    const minutes = (g: (typeof GROUPS)[number]) => (byGroup[g]?.firstRequests ?? 0) / RATE_LIMITS[g].perMinute;
    const slowest = GROUPS.reduce((a, b) => (minutes(a) >= minutes(b) ? a : b));
    const tMin = minutes(slowest);
    const pages = GROUPS.map((g) => `${byGroup[g]?.firstRequests ?? 0} ${g}`).join(' / ');
    print(
      `  ${people}: the range pages they need: ${pages} requests; T_min ${tMin.toFixed(2)} min at the full rate (${slowest})`,
    );
    for (const q of QUESTIONS) {
      const at = answered.get(q.name);
      print(
        `    ${q.name.padEnd(36)} ${at === undefined ? `not yet after ${GIVE_UP_MIN} min` : `${at.toFixed(2)} min`}`,
      );
    }
    const last = answered.size === QUESTIONS.length ? Math.max(...answered.values()) : undefined;
    print(
      last === undefined
        ? `    not all answerable within ${GIVE_UP_MIN} min`
        : `    all of them after ${last.toFixed(2)} min: ${goalLine(last / tMin, '<=', 1.2)} (of T_min); ` +
            `429s: ${tooMany}; the sync said: ${said ?? '(nothing)'}`,
    );
    const perGroup = GROUPS.map(
      (g) =>
        `${g} ${rig.sim.requests().filter((r) => r.path.startsWith('/analytics/') && groupOfPath(r.path) === g).length}`,
    );
    print(`    requests until stopped: ${perGroup.join(' / ')}`);
  } finally {
    await rig.close();
  }
}
