import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../src/simulator/index.js';
import type { AnalyticsClient } from '../../src/upstream/client.js';
import { identityKey } from '../../src/upstream/listing/merge.js';
import { sumCounts, sumDecimals, tidyDecimal } from '../../src/domain/numbers.js';
import { METRIC_FIELDS } from '../../src/contract/metrics.js';
import { NOW } from '../helpers/sim.js';
import { clientFor, requestsTo } from '../helpers/client.js';
import { costAnalytics } from '../../src/upstream/endpoints/cost-analytics.js';
import { creditUsageByUser } from '../../src/upstream/endpoints/credit-usage-by-user.js';
import { dauCount } from '../../src/upstream/endpoints/dau-count.js';
import { userActivity } from '../../src/upstream/endpoints/user-activity.js';

let sim: Simulator;
let client: AnalyticsClient;
beforeAll(async () => {
  sim = await startSimulator({ users: 250, now: NOW, rateLimit: false, token: 'rw' });
  client = clientFor(sim);
});
afterAll(async () => {
  await client.close();
  await sim.close();
});

// 200 days: 2026-05-05 … 2026-11-20, split as 90 + 90 + 20.
const RANGE = { start_date: '2026-05-05', end_date: '2026-11-20' };
const WINDOWS = [
  { start_date: '2026-05-05', end_date: '2026-08-02' },
  { start_date: '2026-08-03', end_date: '2026-10-31' },
  { start_date: '2026-11-01', end_date: '2026-11-20' },
];
/** A different split of the same 200 days (50 days each): exact merging gives the same totals either way. */
const QUARTERS = [
  { start_date: '2026-05-05', end_date: '2026-06-23' },
  { start_date: '2026-06-24', end_date: '2026-08-12' },
  { start_date: '2026-08-13', end_date: '2026-10-01' },
  { start_date: '2026-10-02', end_date: '2026-11-20' },
];

describe('a 200-day range is split into ≤90-day requests and merged exactly', () => {
  it('sends three requests with the expected windows', async () => {
    sim.clearRequests();
    const answer = await client.list(dauCount, RANGE);
    expect(answer.windows).toBe(3);
    expect(requestsTo(sim, 'dau-count').map((r) => r.query)).toEqual(WINDOWS);
    expect(answer.data).toHaveLength(200);
    expect([answer.start_date, answer.end_date]).toEqual(['2026-05-05', '2026-11-20']);
  });

  it('user-activity: per-user metrics and active days are the sums of the windows', async () => {
    const merged = await client.list(userActivity, RANGE);
    const parts = await Promise.all(QUARTERS.map((w) => client.list(userActivity, w)));
    const expected = new Map<string, { active_days: number; metrics: Record<string, number> }>();
    for (const part of parts) {
      for (const u of part.data) {
        const seen = expected.get(identityKey(u));
        if (!seen) expected.set(identityKey(u), { active_days: u.active_days, metrics: { ...u.metrics } });
        else {
          seen.active_days += u.active_days;
          for (const f of METRIC_FIELDS) seen.metrics[f]! += u.metrics[f];
        }
      }
    }
    expect(merged.data).toHaveLength(expected.size);
    for (const u of merged.data)
      expect({ active_days: u.active_days, metrics: u.metrics }).toEqual(expected.get(identityKey(u)));
    const dau = await client.list(dauCount, RANGE);
    expect(merged.data.reduce((n, u) => n + u.active_days, 0)).toBe(dau.data.reduce((n, d) => n + d.user_count, 0));
  });

  it('credit usage: per-user totals are the sums of the windows, whatever the split', async () => {
    const merged = await client.list(creditUsageByUser, { ...RANGE, by_model: true });
    const parts = await Promise.all(QUARTERS.map((w) => client.list(creditUsageByUser, { ...w, by_model: true })));
    const sum = (rows: Array<{ credits_consumed: number }>) => rows.reduce((n, r) => n + r.credits_consumed, 0);
    expect(sum(merged.data)).toBe(parts.reduce((n, p) => n + sum(p.data), 0));
    const keys = merged.data.map((r) => `${identityKey(r)}|${r.model_name}`);
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('cost analytics: grouped totals sum exactly, and tokens above 2^53 stay exact', async () => {
    const query = { group_by_keys: ['COST_ANALYTICS_GROUP_BY_RESOURCE' as const] };
    const merged = await client.list(costAnalytics, { ...RANGE, ...query });
    const parts = await Promise.all(QUARTERS.map((w) => client.list(costAnalytics, { ...w, ...query })));
    for (const point of merged.data) {
      expect([point.start_date, point.end_date]).toEqual(['2026-05-05', '2026-11-20']);
      const same = parts
        .flatMap((p) => p.data)
        .filter((p) => p.group_by_values.resource_display_name === point.group_by_values.resource_display_name);
      // Exact sums, written as the upstream writes its own (trailing zeros dropped, two decimals at least).
      expect(point.cost_metrics.billed_amount_usd).toBe(
        tidyDecimal(sumDecimals(same.map((p) => p.cost_metrics.billed_amount_usd))),
      );
      expect(point.cost_metrics.credits_consumed).toBe(
        tidyDecimal(sumDecimals(same.map((p) => p.cost_metrics.credits_consumed))),
      );
      expect(point.cost_metrics.cache_read_tokens).toBe(sumCounts(same.map((p) => p.cost_metrics.cache_read_tokens)));
    }
    // Six 1st-of-month batch days fall in the range: their cache reads are far above 2^53.
    const haiku = merged.data.find((p) => p.group_by_values.resource_display_name === 'claude-haiku-4-5')!;
    expect(typeof haiku.cost_metrics.cache_read_tokens).toBe('string');
    expect(BigInt(haiku.cost_metrics.cache_read_tokens) > 6n * 9_000_000_000_000_000n).toBe(true);
  });

  it('cost analytics by day: the days of all windows, each once', async () => {
    const merged = await client.list(costAnalytics, { ...RANGE, granularity: 'COST_ANALYTICS_TIME_GRANULARITY_DAY' });
    expect(merged.data).toHaveLength(200);
    expect(new Set(merged.data.map((p) => p.start_date)).size).toBe(200);
  });

  it('reports progress across windows and pages', async () => {
    client.cache.clear();
    const seen: number[] = [];
    const answer = await client.list(userActivity, RANGE, { onProgress: (p) => seen.push(p.pages) });
    expect(seen).toEqual(Array.from({ length: answer.pages }, (_, i) => i + 1));
  });
});
