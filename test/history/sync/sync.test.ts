import { statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RuntimeHistory } from '../../../src/history/serving/runtime-history.js';
import { syncOnce } from '../../../src/history/sync/sync-run.js';
import { startSimulator, type Simulator } from '../../../src/simulator/index.js';
import type { AnalyticsClient } from '../../../src/upstream/client.js';
import { costAnalytics } from '../../../src/upstream/endpoints/cost-analytics.js';
import { creditUsageByUser } from '../../../src/upstream/endpoints/credit-usage-by-user.js';
import { userActivity } from '../../../src/upstream/endpoints/user-activity.js';
import { storedHarness, type StoredHarness } from '../../helpers/history.js';
import { NOW } from '../../helpers/sim.js';

/** Rows in a stable order, so that two answers compare whatever order their rows came in. */
const sorted = (rows: unknown[]) => rows.map((r) => JSON.stringify(r)).sort();

describe('the sync, then answers from the store (SQLite, simulator over HTTP)', () => {
  let sim: Simulator;
  let stored: StoredHarness;
  let client: AnalyticsClient;
  let history: RuntimeHistory;
  let path: string;
  const lines: string[] = [];

  beforeAll(async () => {
    sim = await startSimulator({ users: 300, now: NOW, rateLimit: false, token: 'rw' });
    stored = await storedHarness(
      { historyDays: 10, historyMonths: 2, onProgress: (line) => lines.push(line) },
      { simulator: sim },
    );
    ({ upstream: client, history, where: path } = stored);
  }, 60_000);
  afterAll(async () => {
    await stored?.close();
    await sim?.close();
  });

  it('keeps the file private: 0600 in a 0700 directory', () => {
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(statSync(join(path, '..')).mode & 0o777).toBe(0o700);
  });

  it('says how far it is on stderr, ending with done', () => {
    expect(lines.at(-1)).toMatch(/^sync: (\d+)\/\1 blocks \(general .*\), \d+ requests, done$/);
  });

  it.each([
    ['user activity, last 7 days', userActivity, { range: 'last_7_days' }],
    ['user activity, previous month', userActivity, { range: 'previous_month' }],
    ['credits by date, last 7 days (today included)', creditUsageByUser, { range: 'last_7_days', by_date: true }],
    ['credits by model, previous month', creditUsageByUser, { range: 'previous_month', by_model: true }],
    ['cost by user', costAnalytics, { range: 'last_7_days', group_by_keys: ['COST_ANALYTICS_GROUP_BY_USER'] }],
    ['cost per day', costAnalytics, { range: 'last_7_days', granularity: 'COST_ANALYTICS_TIME_GRANULARITY_DAY' }],
  ] as const)('answers %s from the store without a request, as the upstream does', async (_name, listing, args) => {
    const before = sim.requests().length;
    const stored = await client.list(listing as never, args as never);
    expect(sim.requests().length).toBe(before);
    expect(stored.freshness.source).toBe('history');
    const live = await client.list(listing as never, args as never, { liveOnly: true });
    expect(sorted(stored.data)).toEqual(sorted(live.data));
    expect([stored.start_date, stored.end_date]).toEqual([live.start_date, live.end_date]);
  });

  it('fetches live only the days the store lacks', async () => {
    const before = sim.requests().length;
    const answer = await client.list(userActivity, { range: 'last_30_days' });
    const sent = sim.requests().slice(before);
    expect(sent.length).toBeGreaterThan(0);
    // The stored 10 days are not asked for again: every request ends before them.
    for (const r of sent) expect(String(r.query?.end_date ?? '')).not.toBe('2026-11-20');
    const live = await client.list(userActivity, { range: 'last_30_days' }, { liveOnly: true });
    expect(sorted(answer.data)).toEqual(sorted(live.data));
  });

  it('answers cost by resource and by user from the rollups stored with each day, not from every combination', async () => {
    const store = history.source.store;
    const rollups = await store.db
      .selectFrom('history_blocks')
      .select('dataset')
      .distinct()
      .where('dataset', 'like', 'cost-%-by-%')
      .execute();
    expect(rollups.map((r) => r.dataset).sort()).toEqual([
      'cost-by-day-by-resource',
      'cost-by-day-by-total',
      'cost-by-day-by-user',
      'cost-total-months-by-resource',
      'cost-total-months-by-total',
      'cost-total-months-by-user',
    ]);
    for (const group_by_keys of [['COST_ANALYTICS_GROUP_BY_RESOURCE'], ['COST_ANALYTICS_GROUP_BY_USER'], []]) {
      const args = { range: 'previous_month', group_by_keys } as never;
      const live = await client.list(costAnalytics, args, { liveOnly: true });
      // Without the months of every combination, the answer can only come from a rollup.
      const all = await store.db
        .selectFrom('history_rows')
        .selectAll()
        .where('dataset', '=', 'cost-total-months')
        .execute();
      expect(all.length).toBeGreaterThan(0);
      await store.db.deleteFrom('history_rows').where('dataset', '=', 'cost-total-months').execute();
      try {
        const stored = await client.list(costAnalytics, args);
        expect(stored.freshness.source).toBe('history');
        expect(sorted(stored.data)).toEqual(sorted(live.data));
      } finally {
        for (let i = 0; i < all.length; i += 1000)
          await store.db
            .insertInto('history_rows')
            .values(all.slice(i, i + 1000))
            .execute();
      }
    }
  });

  it('a second sync finds nothing left but the days that may still be corrected', async () => {
    const outcome = await syncOnce(client, history.source, { historyDays: 10, historyMonths: 2, syncShare: 1 }, {});
    expect(outcome.ran).toBe(true);
    // Nothing expired yet: the clock has not moved.
    expect(outcome.ran && outcome.result.requests).toBe(0);
  });
});
