import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../../src/simulator/index.js';
import type { AnalyticsClient } from '../../../src/upstream/client.js';
import { CancelledError } from '../../../src/upstream/errors.js';
import { clientFor, requestsTo } from '../../helpers/client.js';
import { changelog } from '../../../src/upstream/endpoints/changelog.js';
import { creditUsageByUser } from '../../../src/upstream/endpoints/credit-usage-by-user.js';
import { dailyUsage } from '../../../src/upstream/endpoints/daily-usage.js';
import { dauCount } from '../../../src/upstream/endpoints/dau-count.js';
import { getUserBudgetOverrides } from '../../../src/upstream/endpoints/get-user-budget-overrides.js';
import { userActivity } from '../../../src/upstream/endpoints/user-activity.js';

let sim: Simulator;
let client: AnalyticsClient;
beforeAll(async () => {
  sim = await startSimulator({ users: 200, now: '2026-11-21T01:00:00Z', rateLimit: false, token: 'rw' });
  client = clientFor(sim);
});
afterAll(async () => {
  await client.close();
  await sim.close();
});
afterEach(() => {
  sim.clearRequests();
  sim.clearFaults();
  client.cache.clear();
});

const at = (iso: string) => sim.configure({ now: iso });
const calls = (endpoint: string) => requestsTo(sim, endpoint).length;

describe('daily endpoints are cached until the refresh hour (03:00 UTC by default)', () => {
  it('serves from cache until 03:00, then fetches again', async () => {
    at('2026-11-21T01:00:00Z');
    const first = await client.list(dauCount, { start_date: '2026-11-01', end_date: '2026-11-07' });
    expect(first.freshness).toEqual({
      fetched_at: '2026-11-21T01:00:00.000Z',
      from_cache: false,
      next_refresh_at: '2026-11-21T03:00:00.000Z',
      source: 'live',
    });
    at('2026-11-21T02:59:59Z');
    const second = await client.list(dauCount, { start_date: '2026-11-01', end_date: '2026-11-07' });
    expect(second.freshness.from_cache).toBe(true);
    expect(second.freshness.fetched_at).toBe('2026-11-21T01:00:00.000Z');
    at('2026-11-21T03:00:01Z');
    expect(
      (await client.list(dauCount, { start_date: '2026-11-01', end_date: '2026-11-07' })).freshness.from_cache,
    ).toBe(false);
    expect(calls('dau-count')).toBe(2);
  });

  it('keeps an answer fetched between 03:00 and 04:00 for 10 minutes at most', async () => {
    at('2026-11-21T03:30:00Z');
    const q = { start_date: '2026-11-10', end_date: '2026-11-12' };
    await client.list(dailyUsage, q);
    at('2026-11-21T03:39:59Z');
    expect((await client.list(dailyUsage, q)).freshness.from_cache).toBe(true);
    at('2026-11-21T03:40:01Z');
    expect((await client.list(dailyUsage, q)).freshness.from_cache).toBe(false);
    at('2026-11-21T03:55:00Z');
    expect((await client.list(dailyUsage, q)).freshness.from_cache).toBe(false);
    at('2026-11-21T04:04:00Z');
    expect((await client.list(dailyUsage, q)).freshness.from_cache).toBe(true);
    at('2026-11-21T04:05:01Z');
    expect((await client.list(dailyUsage, q)).freshness.from_cache).toBe(false);
    // Fetched after 04:00: kept until tomorrow's refresh.
    at('2026-11-21T23:59:00Z');
    expect((await client.list(dailyUsage, q)).freshness).toMatchObject({
      from_cache: true,
      next_refresh_at: '2026-11-22T03:00:00.000Z',
    });
    expect(calls('daily-usage')).toBe(4);
  });

  it('shares one entry between "no dates" and the same seven days given explicitly', async () => {
    at('2026-11-21T10:00:00Z');
    await client.list(dauCount, {});
    expect(
      (await client.list(dauCount, { start_date: '2026-11-14', end_date: '2026-11-20' })).freshness.from_cache,
    ).toBe(true);
    expect((await client.list(dauCount, { range: 'last_7_days' })).freshness.from_cache).toBe(true);
    expect(calls('dau-count')).toBe(1);
  });

  it('never lets a cached default range outlive the refresh hour: until then it still ends on the latest complete day', async () => {
    at('2026-11-21T23:59:00Z');
    const before = await client.list(dauCount, {});
    at('2026-11-22T00:01:00Z');
    const night = await client.list(dauCount, {});
    at('2026-11-22T03:01:00Z');
    const after = await client.list(dauCount, {});
    expect([before.start_date, before.end_date]).toEqual(['2026-11-14', '2026-11-20']);
    expect([night.start_date, night.end_date]).toEqual(['2026-11-14', '2026-11-20']);
    expect(night.freshness.from_cache).toBe(true);
    expect([after.start_date, after.end_date]).toEqual(['2026-11-15', '2026-11-21']);
    expect(after.freshness.from_cache).toBe(false);
  });

  it('follows --refresh-hour: with 5, an answer is kept until 05:00 UTC', async () => {
    const late = clientFor(sim, { refreshHour: 5 });
    try {
      at('2026-11-21T04:00:00Z');
      const first = await late.list(dauCount, { start_date: '2026-11-01', end_date: '2026-11-07' });
      expect(first.freshness.next_refresh_at).toBe('2026-11-21T05:00:00.000Z');
      // Before 05:00 the latest complete day is still the day before yesterday.
      expect((await late.list(dauCount, {})).end_date).toBe('2026-11-19');
      at('2026-11-21T05:00:01Z');
      expect((await late.list(dauCount, {})).end_date).toBe('2026-11-20');
    } finally {
      await late.close();
    }
  });
});

describe('other endpoints', () => {
  it('credit usage touching today or yesterday is kept 10 minutes; older ranges until the refresh', async () => {
    at('2026-11-21T10:00:00Z');
    await client.list(creditUsageByUser, { start_date: '2026-11-15', end_date: '2026-11-21' });
    await client.list(creditUsageByUser, { start_date: '2026-11-01', end_date: '2026-11-07' });
    at('2026-11-21T10:09:00Z');
    expect(
      (await client.list(creditUsageByUser, { start_date: '2026-11-15', end_date: '2026-11-21' })).freshness.from_cache,
    ).toBe(true);
    at('2026-11-21T10:10:01Z');
    const recent = await client.list(creditUsageByUser, { start_date: '2026-11-15', end_date: '2026-11-21' });
    expect(recent.freshness.from_cache).toBe(false);
    expect(recent.freshness.next_refresh_at).toBe('2026-11-21T11:40:01.000Z');
    const old = await client.list(creditUsageByUser, { start_date: '2026-11-01', end_date: '2026-11-07' });
    expect(old.freshness).toMatchObject({ from_cache: true, next_refresh_at: '2026-11-22T03:00:00.000Z' });
    expect(
      (await client.list(creditUsageByUser, { start_date: '2026-11-14', end_date: '2026-11-20' })).freshness
        .next_refresh_at,
    ).not.toBe('2026-11-22T03:00:00.000Z');
  });

  it('never caches budget reads', async () => {
    await client.call(getUserBudgetOverrides, {});
    const second = await client.call(getUserBudgetOverrides, {});
    expect(second.freshness.from_cache).toBe(false);
    expect(calls('get-user-budget-overrides')).toBe(2);
  });

  it('keeps the changelog 10 minutes', async () => {
    at('2026-11-21T10:00:00Z');
    await client.call(changelog, { client: 'all', page: 0 });
    at('2026-11-21T10:09:59Z');
    expect((await client.call(changelog, { client: 'all', page: 0 })).freshness.from_cache).toBe(true);
    at('2026-11-21T10:10:01Z');
    expect((await client.call(changelog, { client: 'all', page: 0 })).freshness.from_cache).toBe(false);
    expect(calls('/api/changelog')).toBe(2);
  });

  it("does not serve one credential's answer to another", async () => {
    at('2026-11-21T10:00:00Z');
    const other = clientFor(sim, { token: 'someone-else' });
    await client.list(dauCount, {});
    await expect(other.list(dauCount, {})).rejects.toThrow(/401/);
    await other.close();
  });
});

describe('identical concurrent requests share one upstream call', () => {
  it('makes one call per page for five identical concurrent listings', async () => {
    at('2026-11-21T10:00:00Z');
    const answers = await Promise.all(
      Array.from({ length: 5 }, () => client.list(userActivity, { range: 'last_30_days' })),
    );
    const pages = answers[0]!.pages;
    expect(calls('user-activity')).toBe(pages);
    expect(answers.filter((a) => !a.freshness.from_cache)).toHaveLength(1);
    for (const a of answers) expect(a.data).toEqual(answers[0]!.data);
  });

  it('keeps a shared call going when one caller cancels, and aborts it when the last one does', async () => {
    at('2026-11-21T10:00:00Z');
    sim.injectFault({ path: '/analytics/v0/dau-count', kind: 'hang' });
    const quitter = new AbortController();
    const stayer = new AbortController();
    const a = client.list(dauCount, {}, { signal: quitter.signal });
    const b = client.list(dauCount, {}, { signal: stayer.signal });
    quitter.abort();
    await expect(a).rejects.toBeInstanceOf(CancelledError);
    const bState = await Promise.race([
      b.then(
        () => 'settled',
        () => 'settled',
      ),
      new Promise((r) => setTimeout(() => r('pending'), 100)),
    ]);
    expect(bState).toBe('pending');
    stayer.abort();
    await expect(b).rejects.toBeInstanceOf(CancelledError);
    // The aborted load was dropped: the next request goes upstream and succeeds.
    expect((await client.list(dauCount, {})).freshness.from_cache).toBe(false);
  });
});

describe('the cache is bounded in bytes', () => {
  it('evicts the least recently used answers beyond its budget', async () => {
    at('2026-11-21T10:00:00Z');
    const small = clientFor(sim, { cacheMaxBytes: 700 });
    for (let d = 1; d <= 6; d++) await small.list(dauCount, { start_date: `2026-10-0${d}`, end_date: `2026-10-0${d}` });
    expect(small.cache.size.bytes).toBeLessThanOrEqual(700);
    expect(small.cache.size.entries).toBeLessThan(6);
    expect(
      (await small.list(dauCount, { start_date: '2026-10-06', end_date: '2026-10-06' })).freshness.from_cache,
    ).toBe(true);
    expect(
      (await small.list(dauCount, { start_date: '2026-10-01', end_date: '2026-10-01' })).freshness.from_cache,
    ).toBe(false);
    await small.close();
  });
});
