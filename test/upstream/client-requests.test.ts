import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { UserInputError } from '../../src/errors.js';
import { startSimulator, type Simulator } from '../../src/simulator/index.js';
import { AnalyticsClient } from '../../src/upstream/client.js';
import {
  CancelledError,
  InvalidArgumentError,
  PermissionDeniedError,
  TimeoutError,
  UnauthenticatedError,
  UpstreamProtocolError,
  UpstreamUnavailableError,
} from '../../src/upstream/errors.js';
import { NOW } from '../helpers/sim.js';
import { clientFor, requestsTo } from '../helpers/client.js';
import { costAnalytics } from '../../src/upstream/endpoints/cost-analytics.js';
import { dailyUsage } from '../../src/upstream/endpoints/daily-usage.js';
import { dau } from '../../src/upstream/endpoints/dau.js';
import { dauCount } from '../../src/upstream/endpoints/dau-count.js';
import { getUserBudgetOverrides } from '../../src/upstream/endpoints/get-user-budget-overrides.js';
import { setUserBudgetOverrides } from '../../src/upstream/endpoints/set-user-budget-overrides.js';
import { userActivity } from '../../src/upstream/endpoints/user-activity.js';

let sim: Simulator;
let client: AnalyticsClient;
beforeAll(async () => {
  sim = await startSimulator({ users: 300, now: NOW, rateLimit: false, token: 'rw', readToken: 'ro' });
  client = clientFor(sim, { timeouts: { headersMs: 400 } });
});
afterAll(async () => {
  await client.close();
  await sim.close();
});
afterEach(() => {
  sim.clearFaults();
  sim.clearRequests();
  client.cache.clear();
});

describe('requests as sent', () => {
  it('always sends explicit, resolved dates, bearer auth and a user agent with name and version', async () => {
    await client.list(dauCount, {});
    const [req] = requestsTo(sim, 'dau-count');
    expect(req!.query).toEqual({ start_date: '2026-11-14', end_date: '2026-11-20' });
    expect(req!.auth).toBe('write');
    expect(req!.userAgent).toMatch(/^org-analytics-mcp\/\d+\.\d+\.\d+/);
  });

  it('pages with the maximum page size', async () => {
    await client.list(userActivity, { range: 'last_30_days' });
    expect(requestsTo(sim, 'user-activity').every((r) => r.query.page_size === '100')).toBe(true);
    await client.list(costAnalytics, {});
    expect((requestsTo(sim, 'cost-analytics')[0]!.body as { page_size: number }).page_size).toBe(1000);
  });

  it.each([
    [
      'end date today',
      () => client.list(dauCount, { end_date: '2026-11-21' }),
      /is today; the latest complete day is 2026-11-20/,
    ],
    [
      'beyond the lookback',
      () => client.list(userActivity, { start_date: '2024-01-01', end_date: '2024-02-01' }),
      /earliest day/,
    ],
    ['one cost date', () => client.list(costAnalytics, { start_date: '2026-11-01' }), /both start_date and end_date/],
    [
      'an unknown group key',
      () => client.list(costAnalytics, { group_by_keys: ['COST_ANALYTICS_GROUP_BY_TEAM' as never] }),
      /Unknown group-by key/,
    ],
    [
      'a non-email filter',
      () => client.list(costAnalytics, { filters: { user_emails: ['bob'] } }),
      /not an email address/,
    ],
    [
      'an empty set request',
      () => client.call(setUserBudgetOverrides, { overrides: [] }),
      /1 to 5000 overrides, got 0/,
    ],
    [
      'range and dates together',
      () => client.list(dailyUsage, { range: 'last_7_days', start_date: '2026-11-01' }),
      /either range or start_date/,
    ],
  ])('refuses %s before any network call', async (_name, call, message) => {
    await expect(call()).rejects.toThrow(message);
    await expect(call()).rejects.toBeInstanceOf(UserInputError);
    expect(sim.requests()).toEqual([]);
  });
});

describe('upstream errors map onto the error family', () => {
  it('401 → Unauthenticated', async () => {
    const bad = clientFor(sim, { token: 'nope' });
    await expect(bad.list(dauCount, {})).rejects.toBeInstanceOf(UnauthenticatedError);
    await bad.close();
  });

  it('403 on a write with a read-only token → PermissionDenied', async () => {
    const ro = clientFor(sim, { token: 'ro' });
    const entry = {
      service_account_name: 'ci-pipeline',
      resource: 'BUDGET_RESOURCE_CREDITS_CONSUMED',
      period: 'BUDGET_PERIOD_MONTHLY',
      config: { limit: '10' },
    };
    await expect(ro.call(setUserBudgetOverrides, { overrides: [entry] })).rejects.toBeInstanceOf(PermissionDeniedError);
    await ro.close();
  });

  it('400 → InvalidArgument carrying the upstream message, never retried', async () => {
    const error = await client
      .call(getUserBudgetOverrides, { user_emails: ['ghost@nowhere.example'] })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidArgumentError);
    // From the upstream: the caller sent it once, and the refusal carries that request.
    expect((error as InvalidArgumentError).request).toMatchObject({ host: 'api', attempts: 1 });
    expect((error as Error).message).toMatch(/ghost@nowhere\.example/);
    expect(requestsTo(sim, 'get-user-budget-overrides')).toHaveLength(1);
  });

  it('404 → a protocol error that points at the base URL', async () => {
    const wrong = clientFor(sim, { baseUrl: `${sim.url}/prefix` });
    await expect(wrong.list(dauCount, {})).rejects.toThrow(/base URL is probably wrong/);
    await wrong.close();
  });

  it('a body of the wrong shape → UpstreamProtocolError', async () => {
    sim.injectFault({ path: '/analytics/v0/dau-count', kind: 'malformed' });
    await expect(client.list(dauCount, {})).rejects.toBeInstanceOf(UpstreamProtocolError);
    expect(requestsTo(sim, 'dau-count')).toHaveLength(1);
  });
});

describe('retries', () => {
  it.each(['500', '503', 'reset'] as const)('retries a read after %s and succeeds', async (kind) => {
    sim.injectFault({ path: '/analytics/v0/dau-count', kind, count: 2 });
    const answer = await client.list(dauCount, {});
    expect(answer.data).toHaveLength(7);
    expect(requestsTo(sim, 'dau-count')).toHaveLength(3);
  });

  it('gives up after three attempts with UpstreamUnavailable', async () => {
    sim.injectFault({ path: '/analytics/v0/daily-usage', kind: '500', count: 5 });
    await expect(client.list(dailyUsage, {})).rejects.toBeInstanceOf(UpstreamUnavailableError);
    expect(requestsTo(sim, 'daily-usage')).toHaveLength(3);
  });

  it('retries a read after a hang times out', async () => {
    sim.injectFault({ path: '/analytics/v0/dau', kind: 'hang' });
    const answer = await client.list(dau, {});
    expect(answer.data.length).toBeGreaterThan(0);
    expect(requestsTo(sim, 'dau')).toHaveLength(2);
  });

  it('reports a timeout once every attempt hangs', async () => {
    sim.injectFault({ path: '/analytics/v0/dau', kind: 'hang', count: 3 });
    const error = await client.list(dau, {}).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TimeoutError);
    expect((error as TimeoutError).phase).toBe('headers');
  });

  it.each(['503', 'reset', 'hang'] as const)(
    'never retries a write after %s: it may have been applied',
    async (kind) => {
      sim.injectFault({ path: '/analytics/v0/set-user-budget-overrides', kind });
      const entry = {
        service_account_name: 'ci-pipeline',
        resource: 'BUDGET_RESOURCE_CREDITS_CONSUMED',
        period: 'BUDGET_PERIOD_MONTHLY',
        config: { limit: '10' },
      };
      await expect(client.call(setUserBudgetOverrides, { overrides: [entry] })).rejects.toThrow();
      expect(requestsTo(sim, 'set-user-budget-overrides')).toHaveLength(1);
    },
  );

  it('retries a write that provably never left (connection refused), and says so', async () => {
    const closed = await startSimulator({ users: 5 });
    const url = closed.url;
    await closed.close();
    const offline = new AnalyticsClient({ baseUrl: url, token: 't', retry: { baseDelayMs: 5, maxDelayMs: 10 } });
    const entry = {
      service_account_name: 'x',
      resource: 'BUDGET_RESOURCE_CREDITS_CONSUMED',
      period: 'BUDGET_PERIOD_MONTHLY',
      config: { limit: '1' },
    };
    const error = await offline.call(setUserBudgetOverrides, { overrides: [entry] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UpstreamUnavailableError);
    expect((error as UpstreamUnavailableError).neverReached).toBe(true);
    expect((error as Error).message).toMatch(/ECONNREFUSED/);
    await offline.close();
  });
});

describe('cancellation', () => {
  it('stops a hanging request at once and frees the connection', async () => {
    sim.injectFault({ path: '/analytics/v0/dau', kind: 'hang' });
    const controller = new AbortController();
    const started = Date.now();
    const pending = client.list(dau, {}, { signal: controller.signal });
    setTimeout(() => controller.abort(), 50);
    await expect(pending).rejects.toBeInstanceOf(CancelledError);
    expect(Date.now() - started).toBeLessThan(300);
    expect(requestsTo(sim, 'dau')).toHaveLength(1);
  });

  it('refuses to start when already cancelled', async () => {
    await expect(client.list(dauCount, {}, { signal: AbortSignal.abort() })).rejects.toBeInstanceOf(CancelledError);
    expect(sim.requests()).toEqual([]);
  });
});
