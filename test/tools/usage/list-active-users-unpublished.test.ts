import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { harness, truthAll, type Harness } from '../../helpers/mcp.js';
import { idOf } from '../../helpers/tools.js';

// Tuesday 2026-11-17. The simulator publishes Monday's list at 02:00 UTC; the server counts it as published from
// 03:00 (the default --refresh-hour). At 01:00 the upstream lists nobody; at 02:30 it already lists people for a
// day not final yet.
const BETWEEN = '2026-11-17T02:30:00Z';
const EARLY = '2026-11-17T01:00:00Z';
const DAY = '2026-11-16';

let h: Harness;
beforeAll(async () => {
  h = await harness({ sim: { users: 120, now: EARLY } });
});
afterAll(() => h.close());

describe('list_active_users for a day not published yet', () => {
  it('before the upstream has the day, says that nobody is listed yet', async () => {
    h.sim.clock.set(EARLY);
    // A client of its own: its cache does not keep this empty list for the 02:30 question.
    const early = await harness({ simulator: h.sim });
    try {
      const a = await early.call('list_active_users', { date: DAY });
      expect(a.structured.active).toBe(0);
      expect(a.text).toMatch(/^Active on 2026-11-16: not published yet, so nobody is listed/);
      expect(a.text).not.toMatch(/not final/);
    } finally {
      await early.close();
    }
  });

  it('shows the people the upstream lists, marked as not final, and never says nobody is listed', async () => {
    h.sim.clock.set(BETWEEN);
    const listed = await truthAll(h.sim, 'dau', 'users', { date: DAY });
    expect(listed.length).toBeGreaterThan(0);
    const a = await h.call('list_active_users', { date: DAY });
    expect(a.isError, a.text).toBe(false);
    expect(a.structured.freshness.not_published).toEqual([DAY]);
    expect(a.structured.active).toBe(listed.length);
    expect(a.structured.rows.map((r: any) => r.user)).toEqual(
      listed.map(idOf).sort().slice(0, a.structured.returned_rows),
    );
    const first = a.text.split('\n')[0];
    expect(first).toMatch(new RegExp(`^Active on ${DAY}, not final \\(not published yet; .*\\): ${listed.length} \\(`));
    expect(first).toMatch(/so far\.$/);
    expect(a.text).not.toMatch(/nobody is listed/);
    expect(a.text).toMatch(/Showing \d+ of \d+/);
  });
});
