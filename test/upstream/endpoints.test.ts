import { readdirSync } from 'node:fs';
import { UserInputError } from '../../src/errors.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROUTES } from '../../src/simulator/http/routes.js';
import { startSimulator, type Simulator } from '../../src/simulator/index.js';
import type { AnalyticsClient } from '../../src/upstream/client.js';
import type { Endpoint, Listing } from '../../src/upstream/endpoint.js';
import { changelog } from '../../src/upstream/endpoints/changelog.js';
import { costAnalytics } from '../../src/upstream/endpoints/cost-analytics.js';
import { creditUsageByUser } from '../../src/upstream/endpoints/credit-usage-by-user.js';
import { dailyUsage } from '../../src/upstream/endpoints/daily-usage.js';
import { dau } from '../../src/upstream/endpoints/dau.js';
import { dauCount } from '../../src/upstream/endpoints/dau-count.js';
import { userActivity } from '../../src/upstream/endpoints/user-activity.js';
import { NOW } from '../helpers/sim.js';
import { clientFor, requestsTo } from '../helpers/client.js';

let sim: Simulator;
let client: AnalyticsClient;
beforeAll(async () => {
  sim = await startSimulator({ users: 150, now: NOW, rateLimit: false, token: 'rw' });
  client = clientFor(sim);
});
afterAll(async () => {
  await client.close();
  await sim.close();
});

const DIR = new URL('../../src/upstream/endpoints/', import.meta.url);
/** Every descriptor in src/upstream/endpoints/, found by reading the folder: a new file is checked without editing this test. */
async function descriptors(): Promise<
  Array<{ file: string; endpoint: Endpoint<any, any> & Partial<Listing<any, any, any, any>> }>
> {
  const found = [];
  for (const file of readdirSync(DIR).filter((f) => f.endsWith('.ts'))) {
    const module = (await import(new URL(file, DIR).href)) as Record<string, unknown>;
    for (const value of Object.values(module)) {
      if (value && typeof value === 'object' && 'name' in value && 'path' in value && 'encode' in value)
        found.push({ file, endpoint: value as any });
    }
  }
  return found;
}

/** The simulator keeps its own page sizes (it shares no code with the client), in its routes. */
const simulatorPageSize = (name: string) => ROUTES[`/analytics/v0/${name}`]?.pages;

describe('one descriptor per upstream operation', () => {
  it('each file under endpoints/ holds one descriptor, named as its path ends and as its file is named', async () => {
    const all = await descriptors();
    expect(all.length).toBeGreaterThanOrEqual(10);
    for (const { file, endpoint } of all) {
      expect(endpoint.path.split('/').at(-1)).toBe(endpoint.name);
      expect(file).toBe(`${endpoint.name}.ts`);
    }
    expect(new Set(all.map((d) => d.file)).size).toBe(all.length);
  });

  it('page sizes agree with the simulator, and unpaged listings are the ones without pagination', async () => {
    for (const { endpoint } of await descriptors()) {
      if (!endpoint.dates) continue;
      expect(endpoint.paging, endpoint.name).toEqual(simulatorPageSize(endpoint.name) ?? null);
    }
  });

  it('every listing answers through list() against the simulator, in one window by default', async () => {
    for (const { endpoint } of await descriptors()) {
      if (!endpoint.dates) continue;
      const answer = await client.list(endpoint as any, {});
      expect(answer.windows, endpoint.name).toBe(1);
      expect(answer.data.length, endpoint.name).toBeGreaterThan(0);
      expect(answer.end_date, endpoint.name).toBe('2026-11-20');
    }
  });
});

describe('list() and page() take the same arguments through the same date rules', () => {
  it('list() gives the same answer again, windows and merge included (the second from cache)', async () => {
    const range = { start_date: '2026-01-01', end_date: '2026-11-20' };
    const same = async <T extends { freshness: { from_cache: boolean } }>(first: Promise<T>, again: Promise<T>) => {
      const [a, b] = [await first, await again];
      expect(b.freshness.from_cache).toBe(true);
      expect({ ...a, freshness: null }).toEqual({ ...b, freshness: null });
    };
    await same(client.list(userActivity, range), client.list(userActivity, range));
    await same(
      client.list(creditUsageByUser, { ...range, by_model: true }),
      client.list(creditUsageByUser, { ...range, by_model: true }),
    );
    await same(
      client.list(costAnalytics, { range: 'year_to_date', granularity: 'COST_ANALYTICS_TIME_GRANULARITY_DAY' }),
      client.list(costAnalytics, { range: 'year_to_date', granularity: 'COST_ANALYTICS_TIME_GRANULARITY_DAY' }),
    );
  });

  it('a named range becomes the same explicit dates in list() and page()', async () => {
    sim.clearRequests();
    await client.list(userActivity, { range: 'previous_month' });
    await client.page(userActivity, { range: 'previous_month', page_size: 5 });
    const sent = requestsTo(sim, 'user-activity').map((r) => [r.query.start_date, r.query.end_date, r.query.page_size]);
    expect(sent[0]).toEqual(['2026-10-01', '2026-10-31', '100']);
    expect(sent.at(-1)).toEqual(['2026-10-01', '2026-10-31', '5']);
  });

  it('page() refuses more than 90 days, and both refuse range with dates, before sending anything', async () => {
    sim.clearRequests();
    await expect(client.page(dailyUsage, { start_date: '2026-01-01', end_date: '2026-11-20' })).rejects.toThrow(
      /One raw page covers at most 90 days/,
    );
    await expect(client.list(dailyUsage, { range: 'last_7_days', end_date: '2026-11-20' })).rejects.toBeInstanceOf(
      UserInputError,
    );
    await expect(client.page(dailyUsage, { range: 'last_7_days', end_date: '2026-11-20' })).rejects.toThrow(
      /either range or start_date/,
    );
    expect(sim.requests()).toHaveLength(0);
  });

  it('page() of an unpaged listing is its single answer, without page_size', async () => {
    sim.clearRequests();
    const { value } = await client.page(dauCount, { range: 'last_30_days' });
    expect(value.daily_active_user_counts).toHaveLength(30);
    expect(requestsTo(sim, 'dau-count')[0]!.query).toEqual({ start_date: '2026-10-22', end_date: '2026-11-20' });
  });

  it('page() clamps page_size and passes the cursor on, for a single date as for a range', async () => {
    sim.clearRequests();
    await client.page(dau, { date: '2026-11-19', page_size: 10_000 });
    const first = await client.page(dau, { date: '2026-11-19', page_size: 10 });
    expect(first.value.users).toHaveLength(10);
    expect(first.value.metadata.effective_date).toBe('2026-11-19');
    const second = await client.page(dau, {
      date: '2026-11-19',
      page_size: 10,
      cursor: first.value.pagination.next_cursor,
    });
    expect(second.value.users[0]).not.toEqual(first.value.users[0]);
    const sent = requestsTo(sim, 'dau').map((r) => r.query);
    expect(sent).toEqual([
      { date: '2026-11-19', page_size: String(ROUTES['/analytics/v0/dau']!.pages!.max) },
      { date: '2026-11-19', page_size: '10' },
      { date: '2026-11-19', page_size: '10', cursor: first.value.pagination.next_cursor },
    ]);
  });

  it('call() sends an operation without dates', async () => {
    const { value } = await client.call(changelog, { page: 0 });
    expect(value.page).toBe(0);
    await expect(client.call(changelog, { page: -1 })).rejects.toThrow(/page must be a whole number/);
  });
});
