import { afterEach, describe, expect, it } from 'vitest';
import { requestsTo } from './helpers/client.js';
import { harness, type Harness, type HarnessOptions } from './helpers/mcp.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const SET = 'set-user-budget-overrides';
const member = (hh: Harness) =>
  hh.sim.state.org.identities.find((i) => i.kind === 'user' && i.leaveDay === Infinity)!.id;
const confirming: HarnessOptions = {
  capabilities: { elicitation: { form: {} } },
  setup: (client) =>
    client.setRequestHandler('elicitation/create', async () => ({ action: 'accept', content: { confirm: true } })),
};

/**
 * Each connection a write can come from: what its dry run promises, and what calling again with dry_run
 * false then does. The promise is checked by doing what it says.
 */
const CONNECTIONS: Array<[string, HarnessOptions, string, 'applied' | 'refused', string?]> = [
  [
    '--http, a 2026-07-28 client without forms',
    { era: 'modern', capabilities: {}, config: { transport: 'http' } },
    'not_on_this_connection',
    'refused',
    'this client cannot show a confirmation form',
  ],
  [
    '--http, a 2025-era client served statelessly',
    { era: 'legacy-http', capabilities: {}, config: { transport: 'http' } },
    'not_on_this_connection',
    'refused',
    'this request does not say what its client can do',
  ],
  [
    'stdio with --confirm-writes always, a client without forms',
    { era: 'legacy', capabilities: {}, config: { confirmWrites: 'always' } },
    'not_on_this_connection',
    'refused',
    'this client cannot show a confirmation form',
  ],
  [
    '--http, a client with forms',
    { era: 'modern', ...confirming, config: { transport: 'http' } },
    'call_again_user_confirms',
    'applied',
  ],
  ['stdio, a client without forms', { era: 'legacy', capabilities: {} }, 'call_again', 'applied'],
  [
    '--http with --confirm-writes never',
    { era: 'modern', capabilities: {}, config: { transport: 'http', confirmWrites: 'never' } },
    'call_again',
    'applied',
  ],
];

describe('a dry run says what applying will do on this connection, and it does', () => {
  it.each(CONNECTIONS)('%s', async (_name, options, toApply, outcome, why) => {
    h = await harness({ sim: { users: 40 }, ...options });
    const overrides = [{ user_email: member(h), limit: '4242', resource: 'credits' }];
    const preview = await h.call('set_budget_overrides', { overrides, dry_run: true });
    expect(preview.isError).toBe(false);
    expect(preview.structured.to_apply).toBe(toApply);
    const promisesApplying = preview.text.includes('Call again with dry_run false to apply');
    expect(promisesApplying).toBe(outcome === 'applied');

    const write = await h.call('set_budget_overrides', { overrides });
    if (outcome === 'applied') {
      expect(write.isError, write.text).toBe(false);
      expect(write.structured.counts).toEqual({ applied: 1 });
      expect(requestsTo(h.sim, SET)).toHaveLength(1);
      return;
    }
    expect(preview.text).toMatch(/Calling again with dry_run false would be refused/);
    expect(preview.text).toMatch(/--confirm-writes never/);
    expect(write.isError).toBe(true);
    expect(write.text).toContain(why!);
    // The arguments are not the problem, and the refusal says so rather than asking to change them.
    expect(write.text).not.toMatch(/Change the arguments/);
    expect(write.text).toMatch(/refused the same way, whatever the arguments/);
    expect(requestsTo(h.sim, SET)).toEqual([]);
  });

  it('says "1 entry", not "1 entries"', async () => {
    h = await harness({ sim: { users: 40 } });
    const one = await h.call('set_budget_overrides', {
      overrides: [{ user_email: member(h), limit: '4242', resource: 'credits' }],
      dry_run: true,
    });
    expect(one.text).toMatch(/^Dry run, nothing written \(1 entry\)/);
    const bad = await h.call('set_budget_overrides', { overrides: [{ user_email: member(h), limit: '-1' }] });
    expect(bad.text).toMatch(/^Nothing written: the entry could not be sent \(invalid 1\)/);
  });
});
