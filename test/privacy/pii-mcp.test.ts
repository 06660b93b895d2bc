import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Pseudonymizer } from '../../src/privacy/pii.js';
import { harness, truthAll, type Harness } from '../helpers/mcp.js';

const EMAIL = /[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}/g;
let h: Harness;
beforeAll(async () => {
  h = await harness({
    sim: { users: 200 },
    config: { pii: 'pseudonymous', confirmWrites: 'never', logLevel: 'debug' },
  });
});
afterAll(() => h.close());

const realEmails = (text: string) => (text.match(EMAIL) ?? []).filter((e) => !/^user-[0-9a-f]{12}@/.test(e));

describe('--pii pseudonymous', () => {
  it.each([
    ['get_user_activity', { range: 'last_30_days', limit: 50 }],
    ['list_active_users', { limit: 50 }],
    ['get_credit_usage', { limit: 50 }],
    ['get_cost_analytics', { group_by: ['user'], limit: 50 }],
    ['get_budget_overrides', { limit: 50 }],
    ['get_editor_language_activity', { group_by: 'user', limit: 50 }],
  ])('%s shows no email, only pseudonyms that keep the domain', async (tool, args) => {
    const r = await h.call(tool, args);
    expect(r.isError).toBe(false);
    expect(realEmails(r.text)).toEqual([]);
    expect(realEmails(JSON.stringify(r.structured))).toEqual([]);
    expect(JSON.stringify(r.structured)).toMatch(/user-[0-9a-f]{12}@northwind\.example/);
  });

  it('gives the same person the same pseudonym everywhere', async () => {
    const a = await h.call('get_user_activity', { limit: 5 });
    const b = await h.call('get_user_activity', { limit: 5 });
    expect(a.structured.rows.map((r: any) => r.user)).toEqual(b.structured.rows.map((r: any) => r.user));
  });

  it('accepts pseudonyms wherever emails are accepted', async () => {
    const listed = (await h.call('get_user_activity', { limit: 50 })).structured.rows.filter(
      (r: any) => r.kind === 'user',
    );
    const pseudonym = listed[0].user as string;
    const filtered = await h.call('get_user_activity', { users: [pseudonym] });
    expect(filtered.structured.rows.map((r: any) => r.user)).toEqual([pseudonym]);
    const cost = await h.call('get_cost_analytics', { group_by: ['user'], filters: { user_emails: [pseudonym] } });
    expect(cost.isError).toBe(false);
    expect(cost.structured.rows.map((r: any) => r.user)).toEqual([pseudonym]);
    const set = await h.call('set_budget_overrides', {
      dry_run: true,
      overrides: [{ user_email: pseudonym, limit: '10' }],
    });
    expect(set.structured.entries[0].user).toBe(pseudonym);
    expect(['new', 'changed']).toContain(set.structured.entries[0].status);
  });

  it('resolves a pseudonym it has not shown yet by looking it up', async () => {
    const fresh = await harness({ sim: { users: 100 }, config: { pii: 'pseudonymous' } });
    try {
      const users = await truthAll(fresh.sim, 'user-activity', 'users', {
        start_date: '2026-08-23',
        end_date: '2026-11-20',
      });
      const email = users.find((u) => u.user_email).user_email as string;
      // Minted by a separate instance with the same key: the server has never shown this pseudonym.
      const pseudonym = new Pseudonymizer('pseudonymous', fresh.deps.config.token!).email(email);
      expect(fresh.deps.pii.resolve(pseudonym)).toBeUndefined();
      const r = await fresh.call('get_user_activity', { range: 'last_90_days', users: [pseudonym] });
      expect(r.isError).toBe(false);
      expect(r.structured.rows).toHaveLength(1);
      const unknown = await fresh.call('get_user_activity', { users: ['user-000000000000@northwind.example'] });
      expect(unknown.isError).toBe(true);
      expect(unknown.text).toMatch(/Unknown pseudonym/);
    } finally {
      await fresh.close();
    }
  });

  it('keeps emails and the token out of the logs', async () => {
    const [a] = (await h.call('get_budget_overrides', { limit: 1 })).structured.rows;
    await h.call('get_budget_overrides', { user_emails: ['ghost@northwind.example'] });
    await h.call('set_budget_overrides', { overrides: [{ user_email: a.user, limit: '11' }] });
    const logs = h.logs.join('\n');
    expect(logs.length).toBeGreaterThan(0);
    expect(realEmails(logs)).toEqual([]);
    expect(logs).not.toContain(h.deps.config.token!);
  });
});
