import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { requestsTo } from '../helpers/client.js';
import { harness, type Harness } from '../helpers/mcp.js';

let h: Harness;
beforeAll(async () => {
  h = await harness({ sim: { users: 60 } });
});
afterAll(() => h.close());
beforeEach(() => h.sim.clearRequests());

const member = () => h.sim.state.org.identities.find((i) => i.kind === 'user' && i.leaveDay === Infinity)!.id;

describe('what can be checked locally is checked before anything is sent', () => {
  it('a user_email that is not an email is refused per entry; the valid entries are still applied', async () => {
    const r = await h.call('set_budget_overrides', {
      overrides: [
        { user_email: 'not-an-email', limit: '100' },
        { service_account_name: 'ci pipeline!', limit: '100' },
        { user_email: member(), limit: '777' },
      ],
    });
    expect(r.isError).toBe(false);
    expect(r.structured.entries[0]).toMatchObject({
      status: 'invalid',
      reason: expect.stringMatching(/'not-an-email' is not an email address/),
    });
    expect(r.structured.entries[1]).toMatchObject({
      status: 'invalid',
      reason: expect.stringMatching(/not a service-account name \(1-100 letters, digits, - or _\)/),
    });
    expect(r.structured.entries[2].status).toBe('applied');
    const sent = requestsTo(h.sim, 'set-user-budget-overrides');
    expect(sent).toHaveLength(1);
    expect(sent.every((q) => q.status === 200)).toBe(true);
  });

  it.each([
    ['get_budget_overrides', { user_emails: ['bob at example'] }, /'bob at example' is not an email address/],
    ['get_budget_overrides', { service_account_names: ['x'.repeat(101)] }, /is not a service-account name/],
    ['get_user_activity', { users: ['has space'] }, /'has space' is not a service-account name/],
    ['get_cost_analytics', { filters: { user_emails: ['@nobody'] } }, /is not an email address/],
    ['get_user_activity', { cursor: 'c'.repeat(1024 * 1024) }, /cursor is 1048576 characters long.*leave cursor out/],
    [
      'get_credit_usage',
      { start_date: '1900-01-01', end_date: '1900-03-01' },
      /Credit usage is answered for the last 2 years at most/,
    ],
  ] as const)(
    '%s with %# bad argument is refused with what to change, and nothing is sent',
    async (tool, args, message) => {
      const r = await h.call(tool, args as Record<string, unknown>);
      expect(r.isError).toBe(true);
      expect(r.text).toMatch(message);
      expect(h.sim.requests().filter((q) => q.path.startsWith('/analytics/'))).toEqual([]);
    },
  );
});
