import { RATE_LIMITS, type RateGroup } from '../../../src/contract/limits.js';
import { DEFAULT_LIMITS } from '../../../src/upstream/limits/limits-config.js';
import { historyRig } from './history-fixture.js';
import { GROUPS, groupOfPath, timedSync } from './history-sync.js';

export interface Pace {
  seconds: number;
  /** Requests a minute per group, measured between its first and last request. */
  perMinute: Record<RateGroup, number>;
  requests: Record<RateGroup, number>;
  tooMany: number;
  peakRssMb: number;
}

/**
 * A sync at the documented limits (the simulator enforces them, the client keeps DEFAULT_LIMITS, share 0.8),
 * stopped after `seconds`: the pace each group keeps, and the 429s.
 */
export async function measurePacing(users: number, seconds: number): Promise<Pace> {
  const rig = await historyRig({ users, rateLimit: true, client: { limits: DEFAULT_LIMITS } });
  try {
    const stop = new AbortController();
    const timer = setTimeout(() => stop.abort(), seconds * 1000);
    const synced = await timedSync(rig, { historyDays: 90, historyMonths: 24, syncShare: 0.8 }, stop.signal);
    clearTimeout(timer);
    const perMinute = {} as Record<RateGroup, number>;
    for (const group of GROUPS) {
      const at = rig.sim
        .requests()
        .filter((r) => r.path.startsWith('/analytics/') && groupOfPath(r.path) === group)
        .map((r) => r.receivedAt)
        .sort((a, b) => a - b);
      perMinute[group] = at.length > 1 ? ((at.length - 1) / (at.at(-1)! - at[0]!)) * 60_000 : 0;
    }
    return {
      seconds: synced.ms / 1000,
      perMinute,
      requests: synced.requests,
      tooMany: synced.tooMany,
      peakRssMb: synced.peakRssMb,
    };
  } finally {
    await rig.close();
  }
}

export function printPacing(print: (line: string) => void, users: number, pace: Pace): void {
  print(
    `  pacing at the documented limits (measured: ${users.toLocaleString('en-US')} people, simulator rate limit on, ` +
      `client DEFAULT_LIMITS, --sync-share 0.8, stopped after ${pace.seconds.toFixed(0)} s):`,
  );
  for (const group of GROUPS) {
    const target = RATE_LIMITS[group].perMinute * 0.8;
    print(
      `    ${group.padEnd(15)} ${String(pace.requests[group]).padStart(4)} requests, ` +
        `${pace.perMinute[group].toFixed(1).padStart(5)}/min vs 0.8 x ${RATE_LIMITS[group].perMinute} = ${target}/min ` +
        `(${((pace.perMinute[group] / target) * 100).toFixed(0)}%)`,
    );
  }
  print(`    429s: ${pace.tooMany} (goal 0: ${pace.tooMany === 0 ? 'met' : 'not met'})`);
}
