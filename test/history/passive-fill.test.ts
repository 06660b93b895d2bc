import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GROUP_BY_KEYS } from '../../src/contract/enums.js';
import { attachHistory, type RuntimeHistory } from '../../src/history/serving/runtime-history.js';
import { createLogger } from '../../src/logger.js';
import { startSimulator, type Simulator } from '../../src/simulator/index.js';
import type { AnalyticsClient } from '../../src/upstream/client.js';
import { costAnalytics } from '../../src/upstream/endpoints/cost-analytics.js';
import { creditUsageByUser } from '../../src/upstream/endpoints/credit-usage-by-user.js';
import { dailyUsage } from '../../src/upstream/endpoints/daily-usage.js';
import { dailyUserActivityByEditorLanguage } from '../../src/upstream/endpoints/daily-user-activity-by-editor-language.js';
import { dauCount } from '../../src/upstream/endpoints/dau-count.js';
import { dau } from '../../src/upstream/endpoints/dau.js';
import { userActivity } from '../../src/upstream/endpoints/user-activity.js';
import { canonicalKey } from '../../src/upstream/cache/canonical-key.js';
import { clientFor } from '../helpers/client.js';
import { NOW } from '../helpers/sim.js';

const DAY = 'COST_ANALYTICS_TIME_GRANULARITY_DAY';
/** Rows in a stable order and with sorted keys: two answers compare whatever order their rows and fields came in. */
const sorted = (rows: unknown[]) => rows.map((r) => canonicalKey(r)).sort();

/**
 * Without a sync, a live answer that is already per day is written into the store as it passes, and the same
 * question is then answered from the store. Each case runs on a store of its own, so none fills another's.
 */
describe('passive fill: live answers of stored shapes are kept (SQLite, simulator over HTTP, no sync)', () => {
  let sim: Simulator;
  let dir: string;
  const open: Array<{ client: AnalyticsClient; history: RuntimeHistory }> = [];
  const fresh = async () => {
    const client = clientFor(sim);
    const log = createLogger(
      'error',
      (t) => t,
      () => {},
    );
    const path = join(dir, `h-${open.length}.sqlite`);
    const history = (await attachHistory(client, { history: path, cacheDir: undefined, demo: false }, log))!;
    open.push({ client, history });
    return { client, history };
  };

  beforeAll(async () => {
    sim = await startSimulator({ users: 60, now: NOW, rateLimit: false, token: 'fill-token' });
    dir = mkdtempSync(join(tmpdir(), 'passive-fill-'));
  });
  afterAll(async () => {
    for (const { client, history } of open) {
      await history.close();
      await client.close();
    }
    await sim?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it.each([
    ['DAU counts, a range', dauCount, { range: 'last_7_days' }, 'dau-count', 7],
    ['daily usage, a range', dailyUsage, { range: 'last_30_days' }, 'daily-usage', 30],
    ["one day's DAU list", dau, { date: '2026-11-18' }, 'dau', 1],
    [
      "one day's editor/language records",
      dailyUserActivityByEditorLanguage,
      { date: '2026-11-19' },
      'editor-language',
      1,
    ],
    [
      'credits by date and model',
      creditUsageByUser,
      { range: 'last_7_days', by_date: true, by_model: true },
      'credits-by-date-model',
      7,
    ],
    [
      'cost per day, all five keys',
      costAnalytics,
      { range: 'last_7_days', granularity: DAY, group_by_keys: [...GROUP_BY_KEYS] },
      'cost-by-day',
      7,
    ],
    [
      'cost per day, all five keys in another order',
      costAnalytics,
      { range: 'last_7_days', granularity: DAY, group_by_keys: [...GROUP_BY_KEYS].reverse() },
      'cost-by-day',
      7,
    ],
  ] as const)('%s: stored as it passes, then answered from the store', async (_name, listing, args, dataset, days) => {
    const { client, history } = await fresh();
    const before = sim.requests().length;
    const live = await client.list(listing as never, args as never);
    expect(live.freshness.source).toBe('live');
    expect(sim.requests().length).toBeGreaterThan(before);
    const blocks = await history.source.store.blocks(dataset, 0, 1e6);
    expect(blocks.length).toBe(days);

    const asked = sim.requests().length;
    const again = await client.list(listing as never, args as never);
    expect(sim.requests().length).toBe(asked);
    expect(again.freshness.source).toBe('history');
    expect(sorted(again.data)).toEqual(sorted(live.data));
    expect([again.start_date, again.end_date]).toEqual([live.start_date, live.end_date]);
  });

  it.each([
    [
      'cost per day with a filter',
      costAnalytics,
      { range: 'last_7_days', granularity: DAY, group_by_keys: [...GROUP_BY_KEYS], filters: { product_names: ['x'] } },
    ],
    [
      'cost per day by user only',
      costAnalytics,
      { range: 'last_7_days', granularity: DAY, group_by_keys: ['COST_ANALYTICS_GROUP_BY_USER'] },
    ],
    ['credits by date without models', creditUsageByUser, { range: 'last_7_days', by_date: true }],
    ['user activity over a range (a sum, not days)', userActivity, { range: 'last_7_days' }],
  ] as const)('%s: not a stored shape, nothing kept', async (_name, listing, args) => {
    const { client, history } = await fresh();
    await client.list(listing as never, args as never);
    const all = await history.source.store.db.selectFrom('history_blocks').selectAll().execute();
    expect(all).toEqual([]);
  });
});
