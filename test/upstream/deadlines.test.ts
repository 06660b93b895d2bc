import { afterEach, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../src/simulator/index.js';
import type { AnalyticsClient, ClientOptions } from '../../src/upstream/client.js';
import { withDeadline } from '../../src/upstream/transport/deadline.js';
import { CancelledError, TimeoutError } from '../../src/upstream/errors.js';
import { NOW } from '../helpers/sim.js';
import { clientFor, requestsTo } from '../helpers/client.js';
import { dauCount } from '../../src/upstream/endpoints/dau-count.js';
import { getUserBudgetOverrides } from '../../src/upstream/endpoints/get-user-budget-overrides.js';
import { setUserBudgetOverrides } from '../../src/upstream/endpoints/set-user-budget-overrides.js';

let sim: Simulator | undefined;
let client: AnalyticsClient | undefined;
afterEach(async () => {
  await client?.close();
  await sim?.close();
  client = sim = undefined;
});

async function start(options: Partial<ClientOptions> = {}) {
  sim = await startSimulator({ users: 30, now: NOW, rateLimit: false, token: 'rw' });
  client = clientFor(sim, options);
  return { sim, client };
}

async function failure(work: Promise<unknown>): Promise<{ error: unknown; ms: number }> {
  const started = Date.now();
  const error = await work.then(
    () => undefined,
    (e: unknown) => e,
  );
  return { error, ms: Date.now() - started };
}

const ENTRY = {
  service_account_name: 'ci-pipeline',
  resource: 'BUDGET_RESOURCE_CREDITS_CONSUMED',
  period: 'BUDGET_PERIOD_MONTHLY',
  config: { limit: '10' },
};

describe('each attempt has a total deadline, headers and body', () => {
  it('cuts off a body that trickles a byte at a time, which no per-chunk timeout ever does', async () => {
    const { sim, client } = await start({ timeouts: { attemptMs: 400 } });
    sim.injectFault({ path: '/analytics/v0/dau-count', kind: 'trickle', intervalMs: 100, count: 3 });
    const { error, ms } = await failure(client.list(dauCount, {}));
    expect(error).toBeInstanceOf(TimeoutError);
    expect(error).toMatchObject({ phase: 'attempt', request: { host: 'api', write: false, attempts: 3 } });
    expect((error as Error).message).toMatch(/did not finish within 0\.4 s/);
    expect(requestsTo(sim, 'dau-count')).toHaveLength(3);
    expect(ms).toBeLessThan(3 * 400 + 5000);
  });

  it('cuts off a hang before the (longer) headers timeout', async () => {
    const { sim, client } = await start({ timeouts: { attemptMs: 300, headersMs: 30_000 } });
    sim.injectFault({ path: '/analytics/v0/dau-count', kind: 'hang', count: 3 });
    const { error } = await failure(client.list(dauCount, {}));
    expect(error).toMatchObject({ kind: 'timeout', phase: 'attempt' });
  });

  it('never resends a write cut off by its deadline: it may have landed', async () => {
    const { sim, client } = await start({ timeouts: { attemptMs: 300 } });
    sim.injectFault({ path: '/analytics/v0/set-user-budget-overrides', kind: 'trickle', intervalMs: 200 });
    const { error } = await failure(client.call(setUserBudgetOverrides, { overrides: [ENTRY] }));
    expect(error).toMatchObject({
      kind: 'timeout',
      phase: 'attempt',
      neverReached: false,
      request: { write: true, attempts: 1 },
    });
    expect(requestsTo(sim, 'set-user-budget-overrides')).toHaveLength(1);
  });
});

describe('a call budget stops every wait, and reads as a timeout, not a cancellation', () => {
  it('while a request hangs; a client that cancels first gets a cancellation', async () => {
    const { sim, client } = await start();
    sim.injectFault({ path: '/analytics/v0/dau-count', kind: 'hang', count: 5 });
    const { error, ms } = await failure(client.list(dauCount, {}, { signal: withDeadline(undefined, 400) }));
    expect(error).toBeInstanceOf(TimeoutError);
    expect(error).toMatchObject({ phase: 'call', message: expect.stringMatching(/within this call's 0\.4 s budget/) });
    expect(ms).toBeLessThan(400 + 3000);

    const cancel = new AbortController();
    setTimeout(() => cancel.abort(), 50);
    const cancelled = await failure(client.list(dauCount, {}, { signal: withDeadline(cancel.signal, 10_000) }));
    expect(cancelled.error).toBeInstanceOf(CancelledError);
  });

  it('while backing off between retries', async () => {
    const { sim, client } = await start({ retry: { baseDelayMs: 20_000, maxDelayMs: 20_000 } });
    sim.injectFault({ path: '/analytics/v0/dau-count', kind: '503', count: 5 });
    const { error, ms } = await failure(client.list(dauCount, {}, { signal: withDeadline(undefined, 400) }));
    expect(error).toMatchObject({ kind: 'timeout', phase: 'call' });
    expect(ms).toBeLessThan(400 + 3000);
    expect(requestsTo(sim, 'dau-count')).toHaveLength(1);
  });

  it('while queued for a rate-limit token; a write that never left says so', async () => {
    // One token, refilled every 10 s: the second request waits in the queue.
    const { sim, client } = await start({ limits: { general: { perMinute: 6, burst: 2 } } });
    await client.call(getUserBudgetOverrides, {});
    const { error, ms } = await failure(
      client.call(setUserBudgetOverrides, { overrides: [ENTRY] }, withDeadline(undefined, 400)),
    );
    expect(error).toMatchObject({
      kind: 'timeout',
      phase: 'call',
      neverReached: true,
      request: { write: true, attempts: 0 },
    });
    expect(ms).toBeLessThan(400 + 3000);
    expect(requestsTo(sim, 'set-user-budget-overrides')).toHaveLength(0);
  });

  it('while waiting on a load another caller shares: the one out of budget leaves at once, the other keeps waiting', async () => {
    const { sim, client } = await start();
    sim.injectFault({ path: '/analytics/v0/dau-count', kind: 'hang' });
    const patient = new AbortController();
    const other = client.list(dauCount, {}, { signal: patient.signal });
    other.catch(() => {});
    const { error, ms } = await failure(client.list(dauCount, {}, { signal: withDeadline(undefined, 300) }));
    expect(error).toMatchObject({ kind: 'timeout', phase: 'call' });
    expect(ms).toBeLessThan(300 + 3000);
    expect(requestsTo(sim, 'dau-count')).toHaveLength(1);
    patient.abort();
    await expect(other).rejects.toBeInstanceOf(CancelledError);
  });
});
