import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { attachHistory, type RuntimeHistory } from '../../../src/history/serving/runtime-history.js';
import { syncOnce } from '../../../src/history/sync/sync-run.js';
import { createLogger } from '../../../src/logger.js';
import { startSimulator, type RequestLogEntry, type Simulator } from '../../../src/simulator/index.js';
import type { AnalyticsClient } from '../../../src/upstream/client.js';
import { clientFor } from '../../helpers/client.js';
import { NOW } from '../../helpers/sim.js';

const SETTINGS = { historyDays: 5, historyMonths: 0, syncShare: 1 };
const MINUTE = 60_000;

/** What one logged request asked for: `endpoint first..last` (days as ISO dates). */
function asked(r: RequestLogEntry): string {
  const q = { ...r.query, ...((r.body as Record<string, string> | undefined) ?? {}) };
  return `${r.path.split('/').pop()} ${q.date ?? q.start_date}..${q.date ?? q.end_date}`;
}

describe('the sync fetches again what may have changed, and nothing else (SQLite, simulator over HTTP)', () => {
  let sim: Simulator;
  let client: AnalyticsClient;
  let history: RuntimeHistory;
  let dir: string;
  /** One sync; the requests it sent, as `endpoint first..last`, sorted. */
  const sync = async () => {
    sim.clearRequests();
    const outcome = await syncOnce(client, history.source, SETTINGS, {});
    expect(outcome.ran && outcome.result.failed).toEqual([]);
    return sim
      .requests()
      .filter((r) => !r.query.cursor && !(r.body as { cursor?: string } | undefined)?.cursor)
      .map(asked)
      .sort();
  };
  const fetchedAt = async (dataset: string, day: string) => {
    const d = Date.parse(`${day}T00:00:00Z`) / 86_400_000;
    return (await history.source.store.blocks(dataset, d, d)).map((b) => b.fetched_at);
  };

  beforeAll(async () => {
    // Today 2026-11-21 at 10:00 UTC: 2026-11-20 is published (the refresh hour is 03:00).
    sim = await startSimulator({ users: 40, now: NOW, rateLimit: false, token: 'refresh-token' });
    client = clientFor(sim);
    dir = mkdtempSync(join(tmpdir(), 'sync-refresh-'));
    const log = createLogger(
      'error',
      (t) => t,
      () => {},
    );
    history = (await attachHistory(client, { history: join(dir, 'h.sqlite'), cacheDir: undefined, demo: false }, log))!;
    await sync();
  });
  afterAll(async () => {
    await history?.close();
    await client?.close();
    await sim?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('an hour later: nothing to fetch', async () => {
    sim.clock.advance(60 * MINUTE);
    expect(await sync()).toEqual([]);
  });

  it("after 90 minutes: today's credit usage again (its one window), nothing else", async () => {
    sim.clock.advance(31 * MINUTE);
    expect(await sync()).toEqual(['credit-usage-by-user 2026-11-19..2026-11-21']);
    expect(await sync()).toEqual([]);
  });

  it('after the next refresh: the new day, and the last two days again; older days are not fetched', async () => {
    const before = {
      old: await fetchedAt('user-activity', '2026-11-18'),
      corrected: await fetchedAt('user-activity', '2026-11-19'),
    };
    // 2026-11-22 at 03:30 UTC: 2026-11-21 is published now.
    sim.clock.set(Date.parse('2026-11-22T03:30:00Z'));
    const sent = await sync();
    for (const endpoint of ['user-activity', 'dau', 'daily-user-activity-by-editor-language']) {
      expect(sent.filter((s) => s.startsWith(`${endpoint} `))).toEqual(
        ['2026-11-19', '2026-11-20', '2026-11-21'].map((d) => `${endpoint} ${d}..${d}`),
      );
    }
    // The windowed series, credits and cost: one request each, for just the new and corrected days (credits:
    // up to today, and from 2026-11-19, whose 90 minutes ran out when it was still one of the last two days).
    expect(sent.filter((s) => !/^(user-activity|dau|daily-user-activity-by-editor-language) /.test(s))).toEqual([
      'cost-analytics 2026-11-19..2026-11-21',
      'credit-usage-by-user 2026-11-19..2026-11-22',
      'daily-usage 2026-11-19..2026-11-21',
      'dau-count 2026-11-19..2026-11-21',
    ]);
    expect(await fetchedAt('user-activity', '2026-11-18')).toEqual(before.old);
    expect(await fetchedAt('user-activity', '2026-11-19')).not.toEqual(before.corrected);
    // Fetched twice now: final. The next sync has nothing to do.
    expect(await sync()).toEqual([]);
  });
});
