import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { harness, type Harness } from '../../helpers/mcp.js';
import { requestsTo } from '../../helpers/client.js';

// Without the history store find_anomalies reads every identity's credits by day live, at the credit-usage rate
// limit. `paced` spaces those requests 250 ms apart (a slow upstream) and answers within 2 s, in a call of 4 s.
let live: Harness;
let paced: Harness;
beforeAll(async () => {
  live = await harness({ sim: { users: 200 } });
  paced = await harness({
    simulator: live.sim,
    config: { answerWithinS: 2, callTimeoutS: 4 },
    client: { limits: { 'credit-usage': { perMinute: 240, burst: 1 } } },
  });
});
afterAll(async () => {
  await paced?.close();
  await live?.close();
});

describe('find_anomalies without a store, on long questions', () => {
  it('refuses year_to_date before sending anything, and says which sync answers it', async () => {
    live.sim.clearRequests();
    const r = await live.call('find_anomalies', { range: 'year_to_date' });
    expect(r.isError).toBe(true);
    expect(live.sim.requests()).toHaveLength(0);
    // 2026-01-01..2026-11-20 and 28 days of baselines before: 2025-12-04..2026-11-21 (today) is 353 days.
    expect(r.text).toMatch(
      /at most 90 days are judged live .* this range has 324: run `org-analytics-mcp sync --history-days 353`/,
    );
    expect(r.text).toMatch(/or ask a shorter range such as last_30_days/);
  });

  it('answers not complete yet within its budget, goes on in the background, and then answers in full', async () => {
    const want = await live.call('find_anomalies', { range: 'last_90_days', limit: 100 });
    expect(want.isError, want.text).toBe(false);
    // 118 days of credits by day in 12 reads, one after the other: more than the call's 4 s at 4 requests a second.
    const first = await paced.call('find_anomalies', { range: 'last_90_days', limit: 100 });
    expect(first.isError, first.text).toBe(false);
    expect(first.structured).toMatchObject({ complete: false, pending: { retry_after_s: expect.any(Number) } });
    let answer = first;
    const started = Date.now();
    for (let i = 0; i < 30 && answer.structured.complete === false; i++) {
      answer = await paced.call('find_anomalies', { range: 'last_90_days', limit: 100 });
      expect(answer.isError, answer.text).toBe(false);
    }
    expect(answer.structured.complete).toBe(true);
    const { freshness: _a, complete: _b, ...got } = answer.structured;
    const { freshness: _c, complete: _d, ...expected } = want.structured;
    expect(got).toEqual(expected);
    expect(Date.now() - started).toBeLessThan(60_000);
    expect(requestsTo(live.sim, 'credit-usage-by-user').every((r) => r.status === 200)).toBe(true);
  }, 90_000);
});
