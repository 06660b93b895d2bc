import { afterEach, describe, expect, it } from 'vitest';
import { harness, type Harness } from '../helpers/mcp.js';

let h: Harness;
afterEach(() => h?.close());

describe('progress', () => {
  for (const era of ['legacy', 'modern'] as const) {
    it(`sends notifications/progress while paging when the client asks (${era})`, async () => {
      h = await harness({ era, sim: { users: 1500 } });
      const seen: Array<{ progress: number; message?: string }> = [];
      const r = await h.call('get_user_activity', { range: 'last_30_days' }, { onprogress: (p) => seen.push(p) });
      expect(r.isError).toBe(false);
      expect(seen.length).toBeGreaterThanOrEqual(10);
      expect(seen.map((p) => p.progress)).toEqual([...seen.map((p) => p.progress)].sort((a, b) => a - b));
      expect(seen.at(-1)!.message).toMatch(
        /^user-activity page \d+(, total not known yet| of ~\d+, about \d+ s left)$/,
      );
    });
  }

  it('sends none when the client gave no progress token', async () => {
    h = await harness({ sim: { users: 300 } });
    let notified = 0;
    h.mcp.setNotificationHandler('notifications/progress', () => void notified++);
    await h.call('get_user_activity', { range: 'last_30_days' });
    expect(notified).toBe(0);
  });
});

describe('cancellation', () => {
  it('stops the upstream work of a cancelled call, and the server goes on serving', async () => {
    h = await harness({ sim: { users: 50 } });
    h.sim.injectFault({ path: '/analytics/v0/daily-usage', kind: 'hang' });
    const controller = new AbortController();
    const pending = h.call('get_daily_usage', {}, { signal: controller.signal });
    await new Promise((r) => setTimeout(r, 100));
    controller.abort('user stop');
    await expect(pending).rejects.toThrow();
    // The hanging upstream request was abandoned: a fresh call goes upstream again and succeeds.
    await new Promise((r) => setTimeout(r, 50));
    const again = await h.call('get_daily_usage', {});
    expect(again.isError).toBe(false);
    expect(again.structured.freshness.from_cache).toBe(false);
    expect(h.logs.some((l) => /"tool failed".*cancelled/.test(l))).toBe(true);
  });
});
