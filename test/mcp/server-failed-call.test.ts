import { afterEach, describe, expect, it } from 'vitest';
import { harness, type Harness } from '../helpers/mcp.js';

let h: Harness;
afterEach(() => h?.close());

const settle = (ms: number) => new Promise((r) => setTimeout(r, ms));
const API = '/analytics/v0/';

describe('a refused or failed call sends nothing more upstream', () => {
  it.each([
    ['get_cost_analytics', { range: 'last_30_days', compare_to: { start_date: '2020-01-01', end_date: '2020-01-31' } }],
    ['get_user_activity', { range: 'last_30_days', compare_to: { start_date: '2020-01-01', end_date: '2020-01-31' } }],
    ['get_user_profile', { user: 'ci-pipeline', start_date: '2020-01-01', end_date: '2020-01-31' }],
  ])('%s refused for its dates: no request at all, then or later', async (tool, args) => {
    h = await harness({ sim: { users: 50 } });
    h.sim.clearRequests();
    const refused = await h.call(tool, args);
    expect(refused.isError).toBe(true);
    expect(refused.text).toMatch(/earliest day you can ask for/);
    await settle(2_000);
    expect(h.sim.requests().filter((r) => r.path.startsWith(API))).toEqual([]);
  });

  it('a profile whose cost fails drops the activity pages still queued behind the rate limit', async () => {
    // One request a second for the general group: user-activity's pages queue up behind it.
    h = await harness({ sim: { users: 1500 }, client: { limits: { general: { perMinute: 60, burst: 2 } } } });
    h.sim.injectFault({ path: `${API}cost-analytics`, kind: '500', count: 10 });
    h.sim.clearRequests();
    const failed = await h.call('get_user_profile', { user: 'ci-pipeline', range: 'last_30_days' });
    expect(failed.isError).toBe(true);
    expect(failed.text).toMatch(/cost-analytics/);
    const pages = () => h.sim.requests().filter((r) => r.path === `${API}user-activity`);
    const sent = pages().length;
    await settle(3_500);
    // At most the request already on its way when the call failed; at a page a second, three or four more otherwise.
    expect(pages().length).toBeLessThanOrEqual(sent + 1);
  });
});
