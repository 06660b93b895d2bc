import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { attachHistory, configuredHistory, type RuntimeHistory } from '../../src/history/serving/runtime-history.js';
import { syncOnce } from '../../src/history/sync/sync-run.js';
import { createLogger } from '../../src/logger.js';
import { startSimulator, type Simulator } from '../../src/simulator/index.js';
import type { AnalyticsClient } from '../../src/upstream/client.js';
import { userActivity } from '../../src/upstream/endpoints/user-activity.js';
import { dauCount } from '../../src/upstream/endpoints/dau-count.js';
import { clientFor } from '../helpers/client.js';
import { harness } from '../helpers/mcp.js';
import { NOW } from '../helpers/sim.js';

describe('days the upstream no longer keeps', () => {
  let sim: Simulator;
  let client: AnalyticsClient;
  let history: RuntimeHistory;
  const path = join(mkdtempSync(join(tmpdir(), 'lookback-')), 'h.sqlite');
  const log = createLogger(
    'warn',
    (t) => t,
    () => {},
  );

  beforeAll(async () => {
    sim = await startSimulator({ users: 80, now: NOW, rateLimit: false, token: 'rw' });
    client = clientFor(sim);
    history = (await attachHistory(client, { history: path, cacheDir: undefined, demo: false }, log))!;
    await syncOnce(client, history.source, { historyDays: 5, historyMonths: 1, syncShare: 1 }, {});
    // Three years on, and a new process opening the same store.
    await history.close();
    sim.configure({ now: '2029-11-21T10:00:00Z' });
    history = (await attachHistory(client, { history: path, cacheDir: undefined, demo: false }, log))!;
  });
  afterAll(async () => {
    await history?.close();
    await client?.close();
    await sim?.close();
  });

  it('stay answered from the store, without a request', async () => {
    const before = sim.requests().length;
    // The 16th to the 18th: final when stored (the last two days of a sync are fetched again on the next one).
    const answer = await client.list(userActivity, { start_date: '2026-11-16', end_date: '2026-11-18' });
    expect(answer.freshness.source).toBe('history');
    expect(answer.data.length).toBeGreaterThan(0);
    expect(sim.requests().length).toBe(before);
  });

  it("reach a server's first call too, while its store is not open yet (it opens on that call)", async () => {
    const h = await harness({ simulator: sim });
    const lazy = configuredHistory(
      h.upstream,
      { history: { kind: 'sqlite', path }, cacheDir: undefined, demo: false },
      log,
    )!;
    try {
      const before = sim.requests().length;
      const answer = await h.call('get_user_activity', { start_date: '2026-11-16', end_date: '2026-11-18' });
      expect(answer.isError, answer.text).toBeFalsy();
      expect(answer.structured.freshness.source).toBe('history');
      expect(sim.requests().length).toBe(before);
    } finally {
      await lazy.close();
      await h.close();
    }
  });

  it('are refused, as before, where the store does not reach', () => {
    expect(() => client.resolve(dauCount, { start_date: '2026-01-01', end_date: '2026-01-05' })).toThrow(
      /the earliest day you can ask for is \d{4}-\d{2}-\d{2}/,
    );
  });
});
