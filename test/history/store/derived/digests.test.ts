import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readDigest, storeDigest } from '../../../../src/history/store/derived/digests.js';
import { migrate, SCHEMA_VERSION } from '../../../../src/history/store/migrations.js';
import { storedHarness, type StoredHarness } from '../../../helpers/history.js';

type Row = Record<string, any>;

/** What each digested dataset sums per identity, computed here from the block's own rows. */
const SUMMED: Record<string, (r: Row) => string | number | undefined> = {
  'user-activity': (r) => r.active_days,
  'user-activity-months': (r) => r.active_days,
  dau: () => 1,
  'credits-by-date-model': (r) => r.credits_consumed,
  'credits-by-model-months': (r) => r.credits_consumed,
  'cost-by-day': (r) => r.cost_metrics?.billed_amount_usd,
  'cost-total-months': (r) => r.cost_metrics?.billed_amount_usd,
};

const who = (r: Row): string | undefined => {
  const u = r.group_by_values?.user_info ?? r;
  return u.user_email !== undefined
    ? `u:${u.user_email}`
    : u.service_account_name !== undefined
      ? `s:${u.service_account_name}`
      : undefined;
};

/** A decimal as a fraction over 10^9, exactly (the simulator writes at most 6 decimals). */
const nano = (v: string | number) => {
  const [w = '0', f = ''] = String(v).split('.');
  return BigInt(w + f.padEnd(9, '0'));
};

describe.each(['sqlite', 'postgres'] as const)(
  'digests, written with each block (%s, simulator over HTTP)',
  (engine) => {
    let stored: StoredHarness;
    beforeAll(async () => {
      stored = await storedHarness({ historyDays: 9, historyMonths: 1, engine }, { sim: { users: 120 } });
    }, 120_000);
    afterAll(async () => {
      await stored?.close();
    });

    it('hold, for every stored block, each identity’s sum of its rows, named by the store’s numbering', async () => {
      const store = stored.history.source.store;
      let checked = 0;
      for (const [dataset, valueOf] of Object.entries(SUMMED)) {
        const blocks = await store.blocks(dataset, 0, 1e6);
        expect(blocks.length, dataset).toBeGreaterThan(0);
        for (const b of blocks) {
          const expected = new Map<string, bigint>();
          let rest = 0n;
          for (const r of await store.rows(dataset, b.start, b.end)) {
            const v = valueOf(r);
            if (v === undefined) continue;
            const key = who(r);
            if (key === undefined) rest += nano(v);
            else expected.set(key, (expected.get(key) ?? 0n) + nano(v));
          }
          const digest = await readDigest(store.db, dataset, b.start, b.end);
          expect(digest, `${dataset} ${b.start}`).toBeDefined();
          const names = await stored.history.source.digest.names(digest!.ids);
          const got = new Map(
            digest!.ids.map((id, i) => [names.get(id)!, BigInt(digest!.v[i]!) * 10n ** BigInt(9 - digest!.scale)]),
          );
          expect(got, `${dataset} ${b.start}`).toEqual(expected);
          expect(BigInt(digest!.rest) * 10n ** BigInt(9 - digest!.scale)).toBe(rest);
          // Cost's digests keep its credits beside billed USD, by the same positions.
          if (dataset.startsWith('cost-')) {
            const credits = new Map<string, bigint>();
            let noOne = 0n;
            for (const r of await store.rows(dataset, b.start, b.end)) {
              const key = who(r);
              const v = nano((r as Row).cost_metrics.credits_consumed);
              if (key === undefined) noOne += v;
              else credits.set(key, (credits.get(key) ?? 0n) + v);
            }
            const c = digest!.credits!;
            const at = (v: number | string) => BigInt(v) * 10n ** BigInt(9 - c.scale);
            expect(new Map(digest!.ids.map((id, i) => [names.get(id)!, at(c.v[i]!)]))).toEqual(credits);
            expect(at(c.rest)).toBe(noOne);
          } else expect(digest!.credits).toBeUndefined();
          expect([...digest!.ids].sort((a, c) => a - c)).toEqual(digest!.ids);
          checked++;
        }
      }
      expect(checked).toBeGreaterThan(30);
    });

    it('are filled from the rows for a store written before them (as the next sync does), alike', async () => {
      const store = stored.history.source.store;
      const digestRows = () =>
        store.db
          .selectFrom('history_rows')
          .select(['dataset', 'start_day', 'body'])
          .where('dataset', 'like', 'digest:%')
          .orderBy('dataset')
          .orderBy('start_day')
          .execute();
      const before = await digestRows();
      expect(before.length).toBeGreaterThan(30);
      for (const table of ['history_rows', 'history_blocks'] as const)
        await store.db.deleteFrom(table).where('dataset', 'like', 'digest:%').execute();
      const day = (await store.blocks('dau', 0, 1e6))[0]!.start;
      expect(await stored.history.source.digest.digests('dau', { start: day, end: day })).toBeNull();
      expect(await store.fillDigests()).toBe(before.length);
      const after = await digestRows();
      expect(after).toEqual(before);
      expect(await store.fillDigests()).toBe(0);
    });

    it('are parsed once per stored block, and read again when the block is written again', async () => {
      const source = stored.history.source;
      const b = (await source.store.blocks('dau', 0, 1e6))[0]!;
      const days = { start: b.start, end: b.end };
      const first = (await source.digest.digests('dau', days))![0]!;
      expect((await source.digest.digests('dau', days))![0]!.ids).toBe(first.ids);
      // A new fetch of the day: a new fetched_at, a new body (here one identity fewer).
      const body = JSON.stringify({ ids: first.ids.slice(1), v: first.v.slice(1), scale: 0, rest: 0 });
      const later = new Date(Date.parse(b.fetched_at) + 60_000).toISOString();
      const block = { ...b, dataset: 'dau', fetched_at: later, expires_at: null };
      await source.store.db.transaction().execute((tx) => storeDigest(tx, block, body));
      const again = (await source.digest.digests('dau', days))![0]!;
      expect(again.ids).toEqual(first.ids.slice(1));
      expect(again.freshness.fetched_at).toBe(later);
      // Written again by this process with the same fetched_at (a re-fetch's oldest page may keep it): read again.
      const rows = await source.store.rows('dau', b.start, b.end);
      await source.store.put([{ ...block, fetched_at: later, items: rows.slice(2) }]);
      const third = (await source.digest.digests('dau', days))![0]!;
      expect(third.ids.length).toBe(rows.length - 2);
    });

    it('written before they kept credits, are dropped by the upgrade and written again, with them, by the next sync', async () => {
      const store = stored.history.source.store;
      const id = 'digest:cost-by-day';
      const b = (await store.blocks(id, 0, 1e6))[0]!;
      const at = (q: any) => q.where('dataset', '=', id).where('start_day', '=', b.start).where('end_day', '=', b.end);
      const { credits: _c, ...old } = (await readDigest(store.db, 'cost-by-day', b.start, b.end))!;
      await at(store.db.updateTable('history_rows').set({ body: JSON.stringify(old) })).execute();
      await store.db
        .updateTable('history_meta')
        .set({ value: String(SCHEMA_VERSION - 1) })
        .where('key', '=', 'schema_version')
        .execute();
      await migrate(store.db, engine);
      expect(await store.blocks(id, b.start, b.end)).toEqual([]);
      expect(await store.fillDigests()).toBe(1);
      expect((await readDigest(store.db, 'cost-by-day', b.start, b.end))!.credits).toBeDefined();
    });

    it('answer a range from the fewest blocks (months first), and nothing where a day is missing', async () => {
      const source = stored.history.source;
      const month = (await source.store.blocks('user-activity-months', 0, 1e6))[0]!;
      const covered = await source.digest.digests('active', { start: month.start, end: month.end });
      expect(covered?.map((d) => d.days)).toEqual([{ start: month.start, end: month.end }]);
      expect(covered![0]!.freshness.source).toBe('history');
      const days = await source.store.blocks('user-activity', 0, 1e6);
      const last = days.at(-1)!.end;
      const byDay = await source.digest.digests('active', { start: last - 2, end: last }, true);
      expect(byDay?.map((d) => d.days.start)).toEqual([last - 2, last - 1, last]);
      expect(await source.digest.digests('active', { start: last - 40, end: last })).toBeNull();
    });
  },
);
