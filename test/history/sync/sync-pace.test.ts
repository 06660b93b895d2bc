import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RATE_LIMITS, type RateGroup } from '../../../src/contract/limits.js';
import { attachHistory, type RuntimeHistory } from '../../../src/history/serving/runtime-history.js';
import { syncOnce } from '../../../src/history/sync/sync-run.js';
import { createLogger } from '../../../src/logger.js';
import { startSimulator, type Simulator } from '../../../src/simulator/index.js';
import type { AnalyticsClient } from '../../../src/upstream/client.js';
import { clientFor } from '../../helpers/client.js';
import { NOW } from '../../helpers/sim.js';

/**
 * The simulator's limits run 20 times faster (time_scale 20: 60/min acts as 1,200/min, the block lasts 0.5 s),
 * and the client knows the same limits, so that a run of a few seconds shows the pace of minutes.
 */
const SCALE = 20;
const SHARE = 0.5;
const GROUP_OF: Record<string, RateGroup> = {
  'credit-usage-by-user': 'credit-usage',
  'cost-analytics': 'cost-analytics',
};

describe('the sync paces each rate group at its share, side by side (documented limits, time-scaled)', () => {
  let sim: Simulator;
  let client: AnalyticsClient;
  let history: RuntimeHistory;
  let dir: string;
  let outcome: Awaited<ReturnType<typeof syncOnce>>;

  beforeAll(async () => {
    sim = await startSimulator({ users: 40, now: NOW, rateLimit: true, timeScale: SCALE, token: 'pace-token' });
    const scaled = (g: RateGroup) => ({ perMinute: RATE_LIMITS[g].perMinute * SCALE, burst: RATE_LIMITS[g].burst });
    client = clientFor(sim, {
      limits: {
        general: scaled('general'),
        'credit-usage': scaled('credit-usage'),
        'cost-analytics': scaled('cost-analytics'),
      },
    });
    dir = mkdtempSync(join(tmpdir(), 'sync-pace-'));
    const log = createLogger(
      'error',
      (t) => t,
      () => {},
    );
    history = (await attachHistory(client, { history: join(dir, 'h.sqlite'), cacheDir: undefined, demo: false }, log))!;
    sim.clearRequests();
    // First the range blocks of the last 7 days and the daily series' newest window (3 general requests, 1 of
    // credits, 1 of cost), then 20 days and 2 months: 65 general requests in all, 6 of credits and 6 of cost.
    outcome = await syncOnce(client, history.source, { historyDays: 20, historyMonths: 2, syncShare: SHARE }, {});
  }, 30_000);
  afterAll(async () => {
    await history?.close();
    await client?.close();
    await sim?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const arrivals = (group: RateGroup) =>
    sim
      .requests()
      .filter((r) => (GROUP_OF[r.path.split('/').pop()!] ?? 'general') === group)
      .map((r) => r.receivedAt)
      .sort((a, b) => a - b);

  it('completes without a single 429', () => {
    expect(outcome.ran && outcome.result.failed).toEqual([]);
    expect(sim.requests().filter((r) => r.status !== 200)).toEqual([]);
  });

  /** The requests of the first tasks (range blocks, the daily series' newest window), fetched at the full rate. */
  const firstOf = (group: RateGroup) => (outcome.ran ? outcome.result.byGroup[group]!.firstRequests : 0);

  it.each(['general', 'credit-usage', 'cost-analytics'] as const)(
    '%s: its first tasks at most at the full rate, then never more than the share of its rate in any stretch of time',
    (group) => {
      expect(firstOf(group)).toBeGreaterThanOrEqual(1);
      const first = arrivals(group).slice(0, firstOf(group));
      const fullGapMs = 60_000 / (RATE_LIMITS[group].perMinute * SCALE);
      for (let i = 0; i < first.length; i++)
        for (let j = i + 1; j < first.length; j++)
          expect(j - i, `${group} first requests ${i}..${j}`).toBeLessThanOrEqual(
            (first[j]! - first[i]!) / fullGapMs + 1.5,
          );
      const at = arrivals(group).slice(firstOf(group));
      expect(at.length).toBeGreaterThanOrEqual(5);
      const gapMs = 60_000 / (RATE_LIMITS[group].perMinute * SCALE * SHARE);
      // Requests i..j arrive within at[j] - at[i]: at most one more than that stretch holds at the pace
      // (and a little for a request that left late and one that left on time arriving close together).
      for (let i = 0; i < at.length; i++)
        for (let j = i + 1; j < at.length; j++)
          expect(j - i, `${group} requests ${i}..${j}`).toBeLessThanOrEqual((at[j]! - at[i]!) / gapMs + 1.5);
    },
  );

  it('runs the groups side by side: credits and cost are fetched while the general group is', () => {
    const general = arrivals('general');
    for (const group of ['credit-usage', 'cost-analytics'] as const) {
      const own = arrivals(group);
      expect(own[0]).toBeLessThan(general.at(-1)!);
      expect(general[0]).toBeLessThan(own.at(-1)!);
    }
    // Each group was paced by itself: the general group, the slowest, ended last.
    expect(Math.max(...arrivals('credit-usage'), ...arrivals('cost-analytics'))).toBeLessThan(general.at(-1)!);
  });
});
