import { describe, expect, it } from 'vitest';
import { normalizeLimit } from '../../../src/tools/budgets/budget-entries.js';
import { planChanges } from '../../../src/tools/budgets/budget-plan.js';
import { listedNames } from '../../../src/tools/budgets/current-overrides.js';
import type { ToolContext } from '../../../src/tools/types.js';

describe('limits', () => {
  it.each([
    ['5000', { limit: '5000' }],
    [5000, { limit: '5000' }],
    ['999999999999999999', { limit: '999999999999999999' }],
    [null, { limit: '' }],
    ['', { limit: '' }],
  ] as const)('%j is accepted', (input, out) => expect(normalizeLimit(input)).toEqual(out));

  it.each([
    [0, /positive/],
    [-5, /positive/],
    ['0', /positive/],
    ['-5', /positive/],
    ['0050', /leading zeros/],
    ['1234567890123456789', /more than 18 digits/],
    ['12.5', /no fractions/],
    [12.5, /not a whole number/],
    ['1e3', /exponents/],
    [2 ** 60, /send it as a string/],
    [undefined, /required/],
  ] as const)('%j is refused', (input, message) => {
    const r = normalizeLimit(input);
    expect('error' in r && r.error).toMatch(message);
  });
});

describe('planning without a known billing plan', () => {
  it('asks for the resource, naming both ways to give it, and reads nothing', async () => {
    const ctx = {
      resolveEmail: async (t: string) => t,
      client: { call: () => Promise.reject(new Error('must not be called')) },
    } as unknown as ToolContext;
    const [entry] = await planChanges([{ user_email: 'a@x.io', limit: '5' }], undefined, ctx);
    expect(entry).toMatchObject({
      status: 'invalid',
      reason: expect.stringMatching(/pass resource credits or usd, or set ANALYTICS_BILLING_PLAN/),
    });
  });
});

describe('reading the unknown identities out of a 400', () => {
  it('takes the list after the last colon, not words of the sentence', () => {
    expect([...listedNames('Unknown user email or service account name: ghost@x.io, phantom-bot.')].sort()).toEqual([
      's:phantom-bot',
      'u:ghost@x.io',
    ]);
    expect(listedNames('Unknown user email or service account name: GHOST@X.IO.')).toEqual(new Set(['u:ghost@x.io']));
    expect(listedNames('Unknown user email or service account name: service.').has('s:user')).toBe(false);
    expect(listedNames('no list here')).toEqual(new Set());
  });
});
