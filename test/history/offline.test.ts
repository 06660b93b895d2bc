import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../src/simulator/index.js';
import { comparable, storedHarness, type StoredHarness } from '../helpers/history.js';
import { harness, type ToolAnswer } from '../helpers/mcp.js';
import { NOW, YESTERDAY, addDays } from '../helpers/sim.js';

/** Questions whose every day the store holds (14 days and the previous month), with compare_to inside too. */
const INSIDE: Array<[string, Record<string, unknown>]> = [
  ['get_active_user_counts', { range: 'last_7_days', compare_to: 'previous_period' }],
  ['get_daily_usage', { range: 'last_7_days' }],
  ['get_user_activity', { range: 'previous_month', sort_by: 'active_days' }],
  ['get_user_activity', { range: 'last_7_days', compare_to: 'previous_period' }],
  ['list_active_users', { date: YESTERDAY, limit: 1000 }],
  ['get_editor_language_activity', { date: addDays(YESTERDAY, -3), group_by: 'editor' }],
  ['get_credit_usage', { range: 'last_7_days', by_model: true, compare_to: 'previous_period' }],
  ['get_credit_usage', { range: 'previous_month' }],
  ['get_cost_analytics', { range: 'previous_month', group_by: ['resource', 'user'] }],
  ['get_cost_analytics', { range: 'last_7_days', granularity: 'day', compare_to: 'previous_period' }],
  ['get_usage_overview', { range: 'last_7_days' }],
];

describe.each(['sqlite', 'postgres'] as const)(
  'inside the stored window (%s), questions answer with the upstream unreachable',
  (engine) => {
    let sim: Simulator;
    let stored: StoredHarness;
    const before = new Map<string, ToolAnswer>();

    beforeAll(async () => {
      sim = await startSimulator({ users: 120, now: NOW, rateLimit: false, token: 'rw', readToken: 'ro' });
      stored = await storedHarness({ historyDays: 14, historyMonths: 1, engine }, { simulator: sim });
      // The live answers, while the upstream is still there.
      const live = await harness({ simulator: sim });
      for (const [tool, args] of INSIDE) before.set(JSON.stringify([tool, args]), await live.call(tool, args));
      await live.close();
      await sim.close();
    }, 120_000);
    afterAll(async () => {
      await stored?.close();
    });

    it.each(INSIDE)('%s %j: from the store, as it answered live', async (tool, args) => {
      const answer = await stored.call(tool, args);
      expect(answer.isError, answer.text).toBe(false);
      expect(answer.structured.freshness.source).toBe('history');
      expect(answer.text).toContain('from the history store');
      const live = before.get(JSON.stringify([tool, args]))!;
      expect(live.isError).toBe(false);
      expect(comparable(answer.structured)).toEqual(comparable(live.structured));
    });

    it('a question outside the window still needs the upstream, and says it cannot reach it', async () => {
      const answer = await stored.call('get_user_activity', {
        start_date: addDays(YESTERDAY, -40),
        end_date: YESTERDAY,
      });
      expect(answer.isError).toBe(true);
    });
  },
);
