import { afterEach, describe, expect, it, vi } from 'vitest';
import { requestsTo } from '../helpers/client.js';
import { harness, type Harness } from '../helpers/mcp.js';

let h: Harness;
afterEach(async () => {
  vi.useRealTimers();
  await h?.close();
});

const member = (hh: Harness) =>
  hh.sim.state.org.identities.find((i) => i.kind === 'user' && i.leaveDay === Infinity)!.id;

describe('a confirmation is bound to the change it approves, and expires', () => {
  it('an answer given after the confirmation expired (10 minutes) asks again instead of writing', async () => {
    const asked: number[] = [];
    h = await harness({
      era: 'modern',
      capabilities: { elicitation: { form: {} } },
      sim: { users: 40 },
      setup: (client) =>
        client.setRequestHandler('elicitation/create', async () => {
          asked.push(Date.now());
          // The first "yes" arrives 11 minutes after the question: too late to count.
          if (asked.length === 1) vi.setSystemTime(Date.now() + 11 * 60_000);
          return { action: 'accept', content: { confirm: true } };
        }),
    });
    const r = await h.call('set_budget_overrides', { overrides: [{ user_email: member(h), limit: '6543' }] });
    expect(asked).toHaveLength(2);
    expect(r.isError).toBe(false);
    expect(r.structured.confirmation).toBe('accepted');
    expect(requestsTo(h.sim, 'set-user-budget-overrides')).toHaveLength(1);
  });
});
