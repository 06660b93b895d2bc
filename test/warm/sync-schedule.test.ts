import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configSchema } from '../../src/config/config.js';
import { attachHistory, type RuntimeHistory } from '../../src/history/serving/runtime-history.js';
import { createLogger } from '../../src/logger.js';
import { startSimulator, type Simulator } from '../../src/simulator/index.js';
import type { AnalyticsClient } from '../../src/upstream/client.js';
import { userActivity } from '../../src/upstream/endpoints/user-activity.js';
import { SyncScheduler } from '../../src/warm/sync-schedule.js';
import { clientFor } from '../helpers/client.js';
import { NOW } from '../helpers/sim.js';
import { ManualClock } from '../helpers/manual-clock.js';

describe('--sync on a running server (the warm-up, with a history store)', () => {
  let sim: Simulator;
  let client: AnalyticsClient;
  let history: RuntimeHistory;
  const lines: string[] = [];
  const log = createLogger(
    'info',
    (t) => t,
    (line) => lines.push(line),
  );

  beforeAll(async () => {
    sim = await startSimulator({ users: 40, now: NOW, rateLimit: false, token: 'rw' });
    client = clientFor(sim);
    const path = join(mkdtempSync(join(tmpdir(), 'sync-schedule-')), 'h.sqlite');
    history = (await attachHistory(client, { history: path, cacheDir: undefined, demo: false }, log))!;
  });
  afterAll(async () => {
    await history?.close();
    await client?.close();
    await sim?.close();
  });

  it('backfills at start, says what it stored, then plans the next run after the refresh or within 90 minutes', async () => {
    const clock = new ManualClock(Date.parse(NOW));
    const scheduler = new SyncScheduler(clock, () => 0);
    const config = configSchema.parse({
      token: 'rw',
      baseUrl: sim.url,
      historyDays: 7,
      historyMonths: 1,
      syncShare: 1,
    });
    await scheduler.start({ client, config, log, history });
    expect(lines.join('\n')).toMatch(/history sync done.*"blocks":[1-9]/);
    // The range blocks of the last 7 days came first; the moment they answered is said at info.
    expect(lines.join('\n')).toMatch(
      /over the last 7 days, and the daily active user counts, answer from the store now/,
    );
    // 10:00 UTC: the next refresh run (04:10 tomorrow) is later than 90 minutes from now.
    expect(new Date(scheduler.nextRunAt!).toISOString()).toBe('2026-11-21T11:30:00.000Z');
    const before = sim.requests().length;
    const answer = await client.list(userActivity, { start_date: '2026-11-18', end_date: '2026-11-20' });
    expect(sim.requests().length).toBe(before);
    expect(answer.freshness.source).toBe('history');
    await scheduler.stop();
    expect(scheduler.nextRunAt).toBeUndefined();
    expect(clock.timers).toHaveLength(0);
  });
});
