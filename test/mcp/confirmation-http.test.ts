import { afterEach, describe, expect, it } from 'vitest';
import { requestsTo } from '../helpers/client.js';
import { harness, type Harness } from '../helpers/mcp.js';

let h: Harness;
afterEach(() => h?.close());

const SET = 'set-user-budget-overrides';
const member = (hh: Harness) =>
  hh.sim.state.org.identities.find((i) => i.kind === 'user' && i.leaveDay === Infinity)!.id;

describe('over --http, a budget write nobody can confirm is refused', () => {
  it('a 2026-07-28 request that declares no capabilities writes nothing and is told how to preview or allow it', async () => {
    h = await harness({ era: 'modern', capabilities: {}, config: { transport: 'http' }, sim: { users: 40 } });
    const r = await h.call('set_budget_overrides', { overrides: [{ user_email: member(h), limit: '4242' }] });
    expect(r.isError).toBe(true);
    expect(r.text).toMatch(/nothing was written/i);
    expect(r.text).toMatch(/dry_run/);
    expect(r.text).toMatch(/--confirm-writes never/);
    expect(requestsTo(h.sim, SET)).toEqual([]);
    const preview = await h.call('set_budget_overrides', {
      dry_run: true,
      overrides: [{ user_email: member(h), limit: '4242' }],
    });
    expect(preview.isError).toBe(false);
  });

  it('--confirm-writes never is the explicit opt-out for automation', async () => {
    h = await harness({
      era: 'modern',
      capabilities: {},
      config: { transport: 'http', confirmWrites: 'never' },
      sim: { users: 40 },
    });
    const r = await h.call('set_budget_overrides', { overrides: [{ user_email: member(h), limit: '4242' }] });
    expect(r.isError).toBe(false);
    expect(requestsTo(h.sim, SET)).toHaveLength(1);
  });

  it('--confirm-writes always refuses an unconfirmable write over stdio too', async () => {
    h = await harness({ era: 'legacy', capabilities: {}, config: { confirmWrites: 'always' }, sim: { users: 40 } });
    const r = await h.call('set_budget_overrides', { overrides: [{ user_email: member(h), limit: '4242' }] });
    expect(r.isError).toBe(true);
    expect(r.text).toMatch(/nothing was written/i);
    expect(requestsTo(h.sim, SET)).toEqual([]);
  });
});
