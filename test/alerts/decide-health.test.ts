import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decideAfterFailure } from '../../src/alerts/after-sync.js';
import { staleCandidate, storedThrough } from '../../src/alerts/decide-health.js';
import { syncOnce } from '../../src/history/sync/sync-run.js';
import { formatDay } from '../../src/util/utc-date.js';
import { storedHarness, type StoredHarness } from '../helpers/history.js';
import { YESTERDAY, addDays } from '../helpers/sim.js';

let h: StoredHarness;
const SETTINGS = { historyDays: 3, historyMonths: 0, syncShare: 1 };

beforeAll(async () => {
  h = await storedHarness({ historyDays: 3, historyMonths: 0 }, { sim: { users: 60 } });
}, 120_000);
afterAll(() => h?.close());

describe('sync.failed and data.stale', () => {
  it('a store synced through the latest published day is not stale', async () => {
    expect(formatDay((await storedThrough(h.history.source.store))!)).toBe(YESTERDAY);
    expect(await staleCandidate(h.history.source.store, h.upstream.days())).toBeUndefined();
  });

  it('3 days later a sync that fails: sync.failed with what failed, and data.stale 3 days behind', async () => {
    h.sim.clock.advance(3 * 86_400_000);
    const today = addDays(YESTERDAY, 4);
    h.sim.injectFault({ path: '/analytics/v0/dau-count', kind: '500', count: 3 });
    const outcome = await syncOnce(h.upstream, h.history.source, SETTINGS, {});
    if (!outcome.ran) throw new Error(outcome.reason);
    expect(outcome.result.failed.length).toBe(1);
    const target = { client: h.upstream, config: h.deps.config, log: h.deps.log, history: h.history };
    const decided = await decideAfterFailure(target, outcome.result);
    expect(decided).toEqual([
      {
        type: 'sync.failed',
        dedupKey: `sync.failed:organization:${today}`,
        data: {
          failed_requests: 1,
          not_tried: 0,
          errors: [expect.stringMatching(/^dau-count \d{4}-\d\d-\d\d\.\.\d{4}-\d\d-\d\d: /)],
          next: expect.any(String),
        },
        scope: {},
      },
      {
        type: 'data.stale',
        dedupKey: `data.stale:organization:${today}`,
        // The organization's daily counts stop where they were: every other dataset has the 3 new days.
        data: { stored_through: YESTERDAY, latest_published: addDays(YESTERDAY, 3), days_behind: 3 },
        scope: {},
      },
    ]);
    // A sync that throws says why.
    const thrown = await decideAfterFailure(target, { error: 'the store is gone' });
    expect(thrown[0]!.data.errors).toEqual(['the store is gone']);
  });

  it('2 days behind is not stale yet; a store with no day at all is', async () => {
    const days = h.upstream.days();
    const store = h.history.source.store;
    const through = (await storedThrough(store))!;
    expect(await staleCandidate(store, { ...days, published: through + 2 })).toBeUndefined();
    expect(await staleCandidate(store, { ...days, published: through + 3 })).toMatchObject({
      data: { days_behind: 3 },
    });
  });
});
