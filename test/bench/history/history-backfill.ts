import type { RateGroup } from '../../../src/contract/limits.js';
import { DAY_MS, type HistoryRig } from './history-fixture.js';
import { GROUPS, childSync, duration, minutesAt, type Synced } from './history-sync.js';

/** One line of the backfill table: requests per group, measured or scaled from a slice. */
export interface BackfillRow {
  users: number;
  what: string;
  requests: Record<RateGroup, number>;
  /** 'measured', or how the figure was derived from a measured slice. */
  how: string;
  inProcessMs: number;
  tooMany: number;
  peakRssMb: number;
}

const scale = (r: Record<RateGroup, number>, f: number) =>
  Object.fromEntries(GROUPS.map((g) => [g, Math.round(r[g] * f)])) as Record<RateGroup, number>;

function row(users: number, what: string, s: Synced, how = 'measured', factor = 1): BackfillRow {
  return {
    users,
    what,
    requests: scale(s.requests, factor),
    how,
    inProcessMs: s.ms,
    tooMany: s.tooMany,
    peakRssMb: s.peakRssMb,
  };
}

/**
 * The 90-day backfill, then the next day's increment, on one store. `sliceDays` < 90 syncs only that many
 * days and scales the per-day requests to 90 (derived).
 */
export async function backfillDays(rig: HistoryRig, users: number, sliceDays: number): Promise<BackfillRow[]> {
  const full = await childSync(rig, { historyDays: sliceDays, historyMonths: 0 });
  if (full.result.failed.length) throw new Error(`sync failed: ${JSON.stringify(full.result.failed[0])}`);
  const rows = [
    sliceDays === 90
      ? row(users, '90 days', full)
      : row(users, '90 days', full, `derived: ${sliceDays} days measured, x 90/${sliceDays}`, 90 / sliceDays),
  ];
  // The next day, past the refresh hour: the new day, the two days that may still be corrected, today's credits.
  rig.sim.configure({ advance_ms: DAY_MS });
  const next = await childSync(rig, { historyDays: sliceDays, historyMonths: 0 });
  rows.push(row(users, 'daily increment', next));
  return rows;
}

/** The months of a 24-month backfill (days off); `sliceMonths` < 24 scales (derived). */
export async function backfillMonths(rig: HistoryRig, users: number, sliceMonths: number): Promise<BackfillRow> {
  const s = await childSync(rig, { historyDays: 0, historyMonths: sliceMonths });
  if (s.result.failed.length) throw new Error(`sync failed: ${JSON.stringify(s.result.failed[0])}`);
  return sliceMonths === 24
    ? row(users, '24 months', s)
    : row(users, '24 months', s, `derived: ${sliceMonths} months measured, x 24/${sliceMonths}`, 24 / sliceMonths);
}

/** Minutes of the slowest group at a share of the documented rates, or at measured rates. */
function slowest(requests: Record<RateGroup, number>, minutesOf: (g: RateGroup, n: number) => number) {
  let worst: { group: RateGroup; minutes: number } = { group: 'general', minutes: 0 };
  for (const g of GROUPS) {
    const minutes = minutesOf(g, requests[g]);
    if (minutes > worst.minutes) worst = { group: g, minutes };
  }
  return worst;
}

export function printBackfill(
  print: (line: string) => void,
  rows: BackfillRow[],
  measuredPace?: Record<RateGroup, number>,
): void {
  print(
    '  backfill requests per rate group (measured: simulator limits off, real sync into SQLite) and the time at the ' +
      'documented limits (derived: requests / (0.8 x rate), the slowest group decides; T_min: the same at 1.0 x rate' +
      (measuredPace ? '; "at measured pace": requests / the rates the paced run kept' : '') +
      '):',
  );
  print(
    `    ${'people'.padStart(6)}  ${'sync'.padEnd(16)} ${'general'.padStart(8)} ${'credit'.padStart(7)} ${'cost'.padStart(7)}  ` +
      `${'at 0.8 x rate'.padEnd(28)} ${'T_min'.padStart(8)}${measuredPace ? ' at measured pace' : ''}  measured in  429s  how`,
  );
  for (const r of rows) {
    const at = slowest(r.requests, (g, n) => minutesAt(g, n, 0.8));
    const min = slowest(r.requests, (g, n) => minutesAt(g, n, 1));
    const paced = measuredPace ? slowest(r.requests, (g, n) => (measuredPace[g] ? n / measuredPace[g] : 0)) : undefined;
    print(
      `    ${r.users.toLocaleString('en-US').padStart(6)}  ${r.what.padEnd(16)} ${String(r.requests.general).padStart(8)} ` +
        `${String(r.requests['credit-usage']).padStart(7)} ${String(r.requests['cost-analytics']).padStart(7)}  ` +
        `${`${duration(at.minutes)} (${at.group})`.padEnd(28)} ${duration(min.minutes).padStart(8)}` +
        `${paced ? duration(paced.minutes).padStart(17) : ''}  ${`${(r.inProcessMs / 1000).toFixed(0)} s`.padStart(11)}  ` +
        `${String(r.tooMany).padStart(4)}  ${r.how}`,
    );
  }
}
