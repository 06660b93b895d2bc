import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { harness, truthAll, type Harness } from '../../helpers/mcp.js';
import { YESTERDAY } from '../../helpers/sim.js';
import { TOOL_TEST_USERS, idOf } from '../../helpers/tools.js';

let h: Harness;
beforeAll(async () => {
  h = await harness({ sim: { users: TOOL_TEST_USERS } });
});
afterAll(() => h.close());

describe('list_active_users', () => {
  it('counts everyone active and lists them alphabetically, limited', async () => {
    const everyone = await truthAll(h.sim, 'dau', 'users', { date: YESTERDAY });
    const a = await h.call('list_active_users', { limit: 5 });
    expect(a.structured.active).toBe(everyone.length);
    expect(a.structured.rows.map((r: any) => r.user)).toEqual(everyone.map(idOf).sort().slice(0, 5));
    expect(a.structured).toMatchObject({ total_rows: everyone.length, returned_rows: 5, truncated: false });
  });

  it('checks named people with `users`', async () => {
    const everyone = await truthAll(h.sim, 'dau', 'users', { date: YESTERDAY });
    const someone = everyone.find((u) => u.user_email).user_email;
    const a = await h.call('list_active_users', { users: [someone.toUpperCase(), 'nobody@northwind.example'] });
    expect(a.structured.rows).toEqual([{ user: someone, kind: 'user' }]);
  });

  it('returns one raw page with a cursor to continue', async () => {
    const first = await h.call('list_active_users', { page_size: 10 });
    expect(first.structured.rows).toHaveLength(10);
    expect(first.structured.next_cursor).toBeTruthy();
    const second = await h.call('list_active_users', { cursor: first.structured.next_cursor, page_size: 10 });
    const all = (await truthAll(h.sim, 'dau', 'users', { date: YESTERDAY })).map(idOf);
    expect(second.structured.rows.map((r: any) => r.user)).toEqual(all.slice(10, 20));
  });
});
