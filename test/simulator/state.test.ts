import { describe, expect, it } from 'vitest';
import { simClient } from '../helpers/sim.js';

describe('publication at about 02:00 UTC', () => {
  it('reads yesterday as empty before 02:00 UTC and complete after', async () => {
    const sim = await simClient({ users: 100, now: '2026-11-21T01:59:00Z' });
    try {
      const day = { start_date: '2026-11-20', end_date: '2026-11-20' };
      expect((await sim.get('dau-count', day)).body.daily_active_user_counts).toEqual([
        { date: '2026-11-20', user_count: 0 },
      ]);
      expect((await sim.get('daily-usage', day)).body.daily_usage).toEqual([]);
      expect((await sim.get('dau')).body.users).toEqual([]);
      expect((await sim.post('cost-analytics', day)).body.data_points).toEqual([]);
      sim.sim.configure({ now: '2026-11-21T02:00:00Z' });
      expect((await sim.get('dau-count', day)).body.daily_active_user_counts[0].user_count).toBeGreaterThan(0);
      expect((await sim.get('dau')).body.users.length).toBeGreaterThan(0);
      expect((await sim.post('cost-analytics', day)).body.data_points).toHaveLength(1);
    } finally {
      await sim.close();
    }
  });
});
