import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readDigest } from '../../../../src/history/store/derived/digests.js';
import { PASS } from '../../../../src/history/store/derived/passes.js';
import type { HistoryStore } from '../../../../src/history/store/history-store.js';
import { startSimulator, type Simulator } from '../../../../src/simulator/index.js';
import { storedHarness, type StoredHarness } from '../../../helpers/history.js';
import { NOW } from '../../../helpers/sim.js';

// Runs of 2 to 16 days and of two months (September and October): each span kind, summed in several passes.
const SYNC = { historyDays: 20, historyMonths: 2 };
/** Records per pass in the second store: several passes for a day of this organization. */
const SMALL = 10;

/** Every block a store holds, without when it was fetched. */
async function listing(store: HistoryStore) {
  const rows = await store.db
    .selectFrom('history_blocks')
    .select(['dataset', 'start_day', 'end_day', 'rows', 'grain', 'expires_at'])
    .orderBy('dataset')
    .orderBy('start_day')
    .orderBy('end_day')
    .execute();
  return rows.map((r) => ({ ...r, start_day: Number(r.start_day), end_day: Number(r.end_day), rows: Number(r.rows) }));
}

/** A digest by identity: each store numbers its identities in its own order. */
async function digestByIdentity(store: HistoryStore, dataset: string, start: number, end: number) {
  const digest = (await readDigest(store.db, dataset, start, end))!;
  const names = await store.people.namesOf(store.db, digest.ids);
  return {
    values: Object.fromEntries(digest.ids.map((id, i) => [names.get(id), digest.v[i]])),
    scale: digest.scale,
    rest: digest.rest,
  };
}

describe.each(['sqlite', 'postgres'] as const)(
  'sums per identity in passes over shares of the identities (%s, simulator over HTTP)',
  (engine) => {
    let sim: Simulator;
    let whole: StoredHarness;
    let shared: StoredHarness;
    beforeAll(async () => {
      // One organization for both stores: the simulator answers both syncs alike.
      sim = await startSimulator({ users: 60, now: NOW, rateLimit: false, token: 'rw', readToken: 'ro' });
      whole = await storedHarness({ ...SYNC, engine }, { simulator: sim });
      // The same organization, each block's rollups, digests and spans summed in several passes.
      const records = PASS.records;
      PASS.records = SMALL;
      try {
        shared = await storedHarness({ ...SYNC, engine }, { simulator: sim });
      } finally {
        PASS.records = records;
      }
    }, 240_000);
    afterAll(async () => {
      await whole?.close();
      await shared?.close();
      await sim?.close();
    });

    it('store the same blocks, rows in the same order, and digests, as one pass does', async () => {
      const [a, b] = [whole.history.source.store, shared.history.source.store];
      const blocks = await listing(a);
      expect(await listing(b)).toEqual(blocks);
      const datasets = new Set(blocks.map((x) => x.dataset));
      // Rollups and spans of identities are among them, large enough for several passes.
      for (const id of ['cost-by-day-by-user', 'span:user-activity', 'span:credits-by-date-model'])
        expect(datasets, id).toContain(id);
      for (const id of ['cost-by-day', 'user-activity', 'span:user-activity'])
        expect(Math.max(...blocks.filter((x) => x.dataset === id).map((x) => x.rows)), id).toBeGreaterThan(2 * SMALL);
      for (const x of blocks) {
        const what = `${x.dataset} ${x.start_day}..${x.end_day}`;
        if (x.dataset.startsWith('digest:')) {
          const dataset = x.dataset.slice('digest:'.length);
          expect(await digestByIdentity(b, dataset, x.start_day, x.end_day), what).toEqual(
            await digestByIdentity(a, dataset, x.start_day, x.end_day),
          );
        } else
          expect(await b.rows(x.dataset, x.start_day, x.end_day), what).toEqual(
            await a.rows(x.dataset, x.start_day, x.end_day),
          );
      }
    });

    it('leave nothing staged', async () => {
      const staged = await shared.history.source.store.db
        .selectFrom('history_rows')
        .select('dataset')
        .where('dataset', 'like', 'staging:%')
        .execute();
      expect(staged).toEqual([]);
    });
  },
);
