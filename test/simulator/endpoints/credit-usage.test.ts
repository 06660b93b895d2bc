import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { YESTERDAY, addDays, allPages, simClient, type SimClient } from '../../helpers/sim.js';

let c: SimClient;
beforeAll(async () => {
  c = await simClient({ users: 400 });
});
afterAll(() => c.close());

const idOf = (r: any) => r.user_email ?? r.service_account_name;
const RANGE = { start_date: addDays(YESTERDAY, -13), end_date: YESTERDAY };

describe('cursors over a credit-usage refresh', () => {
  it('keep serving the snapshot of the first page: nothing repeated, nothing skipped', async () => {
    const sim = await simClient({ users: 300, now: '2026-11-21T01:31:00Z' });
    try {
      const today = { start_date: '2026-11-21', end_date: '2026-11-21', page_size: 24 };
      const first = await sim.get('credit-usage-by-user', today);
      const whole = (await allPages(sim, 'credit-usage-by-user', { ...today, page_size: 500 })).flatMap(
        (p) => p.body.records,
      );
      sim.sim.configure({ now: '2026-11-21T04:31:00Z' });
      const rest = [];
      let cursor = first.body.pagination.next_cursor;
      while (cursor) {
        const page = await sim.get('credit-usage-by-user', { ...today, cursor });
        rest.push(...page.body.records);
        cursor = page.body.pagination.has_more ? page.body.pagination.next_cursor : '';
      }
      expect([...first.body.records, ...rest]).toEqual(whole);
      const fresh = (await allPages(sim, 'credit-usage-by-user', { ...today, page_size: 500 })).flatMap(
        (p) => p.body.records,
      );
      expect(fresh).not.toEqual(whole);
    } finally {
      await sim.close();
    }
  });
});

describe('credit-usage rows', () => {
  it('are unique per (identity, date, model) with both dimensions', async () => {
    const records = (
      await allPages(c, 'credit-usage-by-user', { ...RANGE, by_date: true, by_model: true, page_size: 500 })
    ).flatMap((p) => p.body.records);
    const keys = records.map((r: any) => `${idOf(r)}|${r.date}|${r.model_name}`);
    expect(new Set(keys).size).toBe(keys.length);
    expect(new Set(records.map((r: any) => r.model_name)).size).toBeGreaterThan(2);
  });
});
