import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NEW_MODEL, SPIKE } from '../../../src/simulator/data/catalog.js';
import { formatDay } from '../../../src/util/utc-date.js';
import { storedHarness, type StoredHarness } from '../../helpers/history.js';
import { harness, type Harness } from '../../helpers/mcp.js';
import { upstream } from '../../helpers/org/sim-rows.js';

// 40 stored days: of the last 30 complete days (through 2026-11-20), those from 2026-11-09 have their 28-day baselines.
const STORE = { historyDays: 40, historyMonths: 0 };

let live: Harness;
let stored: StoredHarness;
let spikeDay: number;
let newModelDay: number;

/** value, baseline and ratio of a day against the median of its 28 days before (missing days 0), floored. */
function expected(byDay: Map<string, number>, day: number, floor: number) {
  const before = Array.from({ length: 28 }, (_, k) => byDay.get(formatDay(day - 28 + k)) ?? 0).sort((a, b) => a - b);
  const baseline = Math.max((before[13]! + before[14]!) / 2, floor);
  const value = byDay.get(formatDay(day))!;
  return { value, baseline, ratio: Math.round((value / baseline) * 100) / 100 };
}

beforeAll(async () => {
  live = await harness({ sim: { users: 300 } });
  stored = await storedHarness(STORE, { simulator: live.sim });
  spikeDay = live.sim.state.org.anchorDay - SPIKE.daysBeforeAnchor;
  newModelDay = live.sim.state.org.anchorDay - NEW_MODEL.daysBeforeAnchor;
}, 120_000);
afterAll(async () => {
  await stored?.close();
  await live?.close();
});

describe('find_anomalies', () => {
  it("finds the planted service account's spike first, with the figures the upstream's own credits give", async () => {
    const r = await stored.call('find_anomalies', { limit: 50 });
    expect(r.isError).toBe(false);
    const out = r.structured;
    const rows = await upstream(live.sim, 'credit-usage-by-user', {
      query: { start_date: formatDay(spikeDay - 28), end_date: formatDay(spikeDay), by_date: 'true', page_size: '500' },
    });
    const credits = new Map<string, number>(
      rows.filter((x) => x.service_account_name === SPIKE.account).map((x) => [x.date, x.credits_consumed]),
    );
    const want = expected(credits, spikeDay, 500);
    expect(want.ratio).toBeGreaterThan(10);
    expect(out.anomalies[0]).toEqual({
      kind: 'identity_credits',
      service_account_name: SPIKE.account,
      date: formatDay(spikeDay),
      ...want,
    });
    expect(out.method).toMatch(/median of its previous 28 days/);
    expect(r.text).toContain(`${SPIKE.account} (sa)`);
    // Compact for a model: the default answer is under a tenth of the daily credits alone that it judged.
    const answer = await stored.call('find_anomalies', {});
    const bytes = (v: unknown) => Buffer.byteLength(JSON.stringify(v));
    expect(bytes(answer.structured)).toBeLessThan(bytes(rows) / 10);
  });

  it('finds the new model on the day it first appears, at the cost the upstream bills for it', async () => {
    const out = (await stored.call('find_anomalies', { limit: 50 })).structured;
    const points = await upstream(live.sim, 'cost-analytics', {
      body: {
        start_date: formatDay(newModelDay - 28),
        end_date: formatDay(newModelDay + 2),
        group_by_keys: ['COST_ANALYTICS_GROUP_BY_RESOURCE'],
        granularity: 'COST_ANALYTICS_TIME_GRANULARITY_DAY',
        page_size: 1000,
      },
    });
    const days = points.filter((p) => p.group_by_values.resource_display_name === NEW_MODEL.name);
    expect(days[0].start_date).toBe(formatDay(newModelDay));
    const found = out.anomalies.filter((a: any) => a.kind === 'new_resource');
    expect(found).toEqual([
      {
        kind: 'new_resource',
        scope: NEW_MODEL.name,
        date: formatDay(newModelDay),
        value: days[0].cost_metrics.billed_amount_usd,
        baseline: expect.stringMatching(/^0(\.0+)?$/),
        ratio: null,
      },
    ]);
    // A few people took it up.
    const users = await upstream(live.sim, 'credit-usage-by-user', {
      query: {
        start_date: formatDay(newModelDay),
        end_date: formatDay(newModelDay),
        by_model: 'true',
        page_size: '500',
      },
    });
    expect(users.filter((u) => u.model_name === NEW_MODEL.name).length).toBeGreaterThanOrEqual(2);
  });

  it('leaves out the days whose baselines the store lacks, says so, and keeps totals whole under a limit', async () => {
    const [all, one, covered] = await Promise.all([
      stored.call('find_anomalies', {}),
      stored.call('find_anomalies', { limit: 1 }),
      stored.call('find_anomalies', { start_date: '2026-11-09', end_date: '2026-11-20' }),
    ]);
    expect(all.structured.left_out).toEqual({ start_date: '2026-10-22', end_date: '2026-11-08' });
    expect(all.structured.needs).toMatch(/org-analytics-mcp sync --history-days 59/);
    expect(all.structured.anomalies.every((a: any) => a.date >= '2026-11-09')).toBe(true);
    expect(covered.structured.left_out).toBeUndefined();
    expect(covered.structured.needs).toBeUndefined();
    expect(covered.structured.anomalies).toEqual(all.structured.anomalies);
    expect(one.structured.returned_rows).toBe(1);
    expect(one.structured.count).toBe(all.structured.count);
    expect(one.structured.totals).toEqual(all.structured.totals);
    expect(Object.values(all.structured.totals).reduce((n: number, k: any) => n + k, 0)).toBe(all.structured.count);
    // Compact: far fewer rows than the identity-days it read.
    expect(JSON.stringify(all.structured).length).toBeLessThan(20_000);
  });

  it('answers the same from a PostgreSQL store', async () => {
    const pg = await storedHarness({ ...STORE, engine: 'postgres' }, { simulator: live.sim });
    try {
      const [fromPg, fromSqlite] = await Promise.all([
        pg.call('find_anomalies', { limit: 100 }),
        stored.call('find_anomalies', { limit: 100 }),
      ]);
      expect(fromPg.structured.anomalies).toEqual(fromSqlite.structured.anomalies);
      expect(fromPg.structured.left_out).toEqual(fromSqlite.structured.left_out);
    } finally {
      await pg.close();
    }
  }, 120_000);

  it('without a store, judges daily credits live and says which sync answers the rest', async () => {
    const [without, withStore] = await Promise.all([
      live.call('find_anomalies', { start_date: '2026-11-09', end_date: '2026-11-20', limit: 100 }),
      stored.call('find_anomalies', { start_date: '2026-11-09', end_date: '2026-11-20', limit: 100 }),
    ]);
    expect(without.isError).toBe(false);
    const kinds = new Set(without.structured.anomalies.map((a: any) => a.kind));
    expect([...kinds].every((k) => ['identity_credits', 'org_credits', 'org_active_users'].includes(k as string))).toBe(
      true,
    );
    const credits = (out: any) => out.anomalies.filter((a: any) => a.kind === 'identity_credits');
    expect(credits(without.structured)).toEqual(credits(withStore.structured));
    expect(credits(without.structured)[0]).toMatchObject({ service_account_name: SPIKE.account });
    expect(without.structured.needs).toMatch(/history store: run `org-analytics-mcp sync --history-days \d+`/);
    expect(without.text).toMatch(/sync --history-days/);
  });
});
