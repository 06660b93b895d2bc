import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createAuditSink } from '../../src/audit.js';
import { Pseudonymizer } from '../../src/pii.js';
import { listedNames, normalizeLimit, planChanges } from '../../src/tools/budget-plan.js';
import type { ToolContext } from '../../src/tools/types.js';

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
    const ctx = { resolveEmail: async (t: string) => t, client: { getOverrides: () => Promise.reject(new Error('must not be called')) } } as unknown as ToolContext;
    const [entry] = await planChanges([{ user_email: 'a@x.io', limit: '5' }], undefined, ctx);
    expect(entry).toMatchObject({ status: 'invalid', reason: expect.stringMatching(/pass resource credits or usd, or set ANALYTICS_BILLING_PLAN/) });
  });
});

describe('the audit log', () => {
  it('writes one JSON line per change to stderr and the file, pseudonymised when asked', () => {
    const dir = mkdtempSync(join(tmpdir(), 'oam-audit-'));
    try {
      const path = join(dir, 'audit.log');
      const stderr: string[] = [];
      const sink = createAuditSink(new Pseudonymizer('pseudonymous', 'k'), path, (t) => stderr.push(t));
      sink([{ identity: 'ada@x.io', kind: 'user', resource: 'BUDGET_RESOURCE_CREDITS_CONSUMED', period: 'BUDGET_PERIOD_MONTHLY', before: null, after: '10', outcome: 'applied' }]);
      sink([{ identity: 'ci-bot', kind: 'service_account', resource: 'BUDGET_RESOURCE_CREDITS_CONSUMED', period: 'BUDGET_PERIOD_MONTHLY', before: '10', after: '', outcome: 'failed', reason: 'x' }]);
      const lines = readFileSync(path, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
      expect(lines).toHaveLength(2);
      expect(lines[0]).toMatchObject({ event: 'budget_override', identity: expect.stringMatching(/^user-[0-9a-f]{12}@x\.io$/), before: null, after: '10', outcome: 'applied' });
      expect(lines[0].time).toMatch(/^\d{4}-\d\d-\d\dT/);
      expect(lines[1]).toMatchObject({ identity: 'ci-bot', outcome: 'failed' });
      expect(stderr.join('')).toBe(readFileSync(path, 'utf8'));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('reading the unknown identities out of a 400', () => {
  it('takes the list after the last colon, not words of the sentence', () => {
    expect([...listedNames('Unknown user email or service account name: ghost@x.io, phantom-bot.')].sort()).toEqual(['s:phantom-bot', 'u:ghost@x.io']);
    expect(listedNames('Unknown user email or service account name: GHOST@X.IO.')).toEqual(new Set(['u:ghost@x.io']));
    expect(listedNames('Unknown user email or service account name: service.').has('s:user')).toBe(false);
    expect(listedNames('no list here')).toEqual(new Set());
  });
});

describe('the audit log in pseudonymous mode', () => {
  it('pseudonymises emails quoted in the reason too', () => {
    const lines: string[] = [];
    createAuditSink(new Pseudonymizer('pseudonymous', 'k'), undefined, (t) => lines.push(t))([
      { identity: 'ada@x.io', kind: 'user', resource: 'R', period: 'P', before: null, after: '1', outcome: 'failed', reason: "upstream: user 'ada@x.io' is not a member" },
    ]);
    expect(lines.join('')).not.toContain('ada@x.io');
    expect(JSON.parse(lines[0]!).reason).toMatch(/user 'user-[0-9a-f]{12}@x\.io' is not a member/);
  });
});
