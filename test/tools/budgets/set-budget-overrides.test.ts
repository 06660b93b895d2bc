import { afterEach, describe, expect, it } from 'vitest';
import { harness, truth, type Harness, type HarnessOptions } from '../../helpers/mcp.js';
import { requestsTo } from '../../helpers/client.js';

let h: Harness;
afterEach(() => h?.close());

const SET = 'set-user-budget-overrides';
const members = (hh: Harness): [string, string, ...string[]] =>
  hh.sim.state.org.identities.filter((i) => i.kind === 'user' && i.leaveDay === Infinity).map((i) => i.id) as [
    string,
    string,
    ...string[],
  ];
const current = async (hh: Harness, email: string) =>
  (await truth(hh.sim, 'get-user-budget-overrides', {}, { user_emails: [email] })).overrides[0]?.config.limit ?? null;
const start = async (options: HarnessOptions = {}) => (h = await harness({ sim: { users: 120 }, ...options }));

describe('dry run', () => {
  it('shows every entry as a diff and sends no set request', async () => {
    await start();
    const withOverride = new Set(
      (await truth(h.sim, 'get-user-budget-overrides', {}, {})).overrides.map((o: any) => o.user_email),
    );
    const [a, b, c] = members(h).filter((m) => !withOverride.has(m)) as [string, string, string];
    await truth(
      h.sim,
      SET,
      {},
      {
        overrides: [
          {
            user_email: b,
            resource: 'BUDGET_RESOURCE_CREDITS_CONSUMED',
            period: 'BUDGET_PERIOD_MONTHLY',
            config: { limit: '700' },
          },
          {
            user_email: c,
            resource: 'BUDGET_RESOURCE_CREDITS_CONSUMED',
            period: 'BUDGET_PERIOD_MONTHLY',
            config: { limit: '900' },
          },
        ],
      },
    );
    h.sim.clearRequests();
    const r = await h.call('set_budget_overrides', {
      dry_run: true,
      overrides: [
        { user_email: a, limit: '5000' },
        { user_email: b, limit: 800 },
        { user_email: c, limit: null },
        { user_email: b.toUpperCase(), limit: '1', resource: 'usd' },
        { user_email: 'ghost@northwind.example', limit: '10' },
        { service_account_name: 'ci-pipeline', limit: '0' },
      ],
    });
    expect(r.isError).toBe(false);
    const byIndex = r.structured.entries.map((e: any) => [e.status, e.before, e.after]);
    expect(byIndex[0]).toEqual(['new', null, '5000']);
    expect(byIndex[1]).toEqual(['changed', '700', '800']);
    expect(byIndex[2]).toEqual(['cleared', '900', '']);
    expect(r.structured.entries[3]).toMatchObject({
      status: 'invalid',
      reason: expect.stringMatching(/does not match the billing plan/),
    });
    expect(r.structured.entries[4].status).toBe('unknown_identity');
    expect(r.structured.entries[5]).toMatchObject({ status: 'invalid', reason: expect.stringMatching(/positive/) });
    expect(requestsTo(h.sim, SET)).toEqual([]);
    expect(r.text).toMatch(/^Dry run, nothing written/);
    expect(await current(h, b)).toBe('700');
  });

  it('is no error when no entry is valid, and says that nothing would be written', async () => {
    await start({ config: { confirmWrites: 'never' } });
    const r = await h.call('set_budget_overrides', {
      dry_run: true,
      overrides: [
        { user_email: members(h)[0], limit: '-1' },
        { user_email: 'ghost@northwind.example', limit: '5' },
      ],
    });
    expect(r.isError).toBe(false);
    expect(r.text).toMatch(/Nothing would be written: no entry is valid/);
    expect(r.text).not.toMatch(/dry_run false to apply/);
  });

  it('counts a mixed preview of 5,000 entries exactly, with rows for the changes first and a small answer', async () => {
    await start({ sim: { users: 6000 } });
    const before = new Map<string, string>(
      (
        await truth(h.sim, 'get-user-budget-overrides', {}, { resource: 'BUDGET_RESOURCE_CREDITS_CONSUMED' })
      ).overrides.map((o: any) => [o.user_email, o.config.limit]),
    );
    const people = members(h).slice(0, 4000);
    // 3,000 valid entries (every third one clears), then 1,000 with a bad limit and 1,000 unknown people.
    const overrides = [
      ...people.slice(0, 3000).map((e, i) => ({ user_email: e, limit: i % 3 === 0 ? null : String(700_000 + i) })),
      ...people.slice(3000).map((e, i) => ({ user_email: e, limit: `${i}.5` })),
      ...people.slice(3000).map((_, i) => ({ user_email: `ghost${i}@northwind.example`, limit: '5' })),
    ];
    const expected = (o: { user_email: string; limit: string | null }) => {
      const was = before.get(o.user_email) ?? null;
      const after = o.limit ?? '';
      const status = after === (was ?? '') ? 'unchanged' : after === '' ? 'cleared' : !was ? 'new' : 'changed';
      return { status, before: was, after };
    };
    const counts: Record<string, number> = { invalid: 1000, unknown_identity: 1000 };
    for (const o of overrides.slice(0, 3000)) counts[expected(o).status] = (counts[expected(o).status] ?? 0) + 1;
    expect(counts.new! + counts.changed! + counts.cleared!).toBeGreaterThan(1000);

    h.sim.clearRequests();
    const r = await h.call('set_budget_overrides', { dry_run: true, overrides });
    expect(r.isError).toBe(false);
    expect(r.structured.counts).toEqual(counts);
    expect(r.structured.refused.map((g: any) => [g.count, g.reason])).toEqual([
      [1000, "limit '…' is not a positive integer string (no fractions, exponents, signs or spaces)"],
      [1000, 'user is not in the organization'],
    ]);
    // Rows go to what would be written first; each is the diff the simulator's state gives.
    const rows = r.structured.entries as any[];
    expect(rows.length).toBeGreaterThan(10);
    for (const row of rows) {
      expect(row.index).toBeLessThan(3000);
      expect(['new', 'changed', 'cleared']).toContain(row.status);
      expect(row).toMatchObject({ user: overrides[row.index]!.user_email, ...expected(overrides[row.index]!) });
    }
    const writes = overrides.slice(0, 3000).flatMap((o, i) => (expected(o).status === 'unchanged' ? [] : [i]));
    expect(rows.map((e) => e.index)).toEqual(writes.slice(0, rows.length));
    expect(r.text.length + JSON.stringify(r.structured).length).toBeLessThanOrEqual(8 * 1024);
    expect(r.text).toMatch(/^Dry run, nothing written \(5,000 entries\): /);
    for (const [status, n] of Object.entries(counts))
      expect(r.text).toContain(`${status} ${n.toLocaleString('en-US')}`);
    expect(r.text).toContain(`${(5000 - rows.length).toLocaleString('en-US')} entries not listed one by one`);
    expect(r.text).toMatch(
      /^1,000 refused: limit '…' is not a positive integer string .*\(#3000 .*, #3001 .*, #3002 .* and 997 more\)$/m,
    );
    expect(requestsTo(h.sim, SET)).toEqual([]);
  }, 60_000);
});

describe('applying', () => {
  it('sends only the valid entries and accounts for every one', async () => {
    await start({ config: { confirmWrites: 'never' } });
    const [a, b] = members(h);
    const r = await h.call('set_budget_overrides', {
      overrides: [
        { user_email: a, limit: '1200' },
        { user_email: b, limit: '007' },
        { user_email: b, limit: '-3' },
        { service_account_name: 'docs-generator', limit: 3000 },
        { user_email: a, service_account_name: 'x', limit: '5' },
        { user_email: 'nobody@northwind.example', limit: '5' },
        { user_email: b, limit: 1e300 },
        { user_email: b, limit: '1.5' },
        { user_email: b, limit: '1e3' },
        { user_email: b, limit: '1234567890123456789' },
      ],
    });
    expect(r.isError).toBe(false);
    expect(r.structured.entries.map((e: any) => e.status)).toEqual([
      'applied',
      'invalid',
      'invalid',
      'applied',
      'invalid',
      'unknown_identity',
      'invalid',
      'invalid',
      'invalid',
      'invalid',
    ]);
    expect(r.structured.counts).toEqual({ applied: 2, invalid: 7, unknown_identity: 1 });
    const sent = requestsTo(h.sim, SET);
    expect(sent).toHaveLength(1);
    expect((sent[0]!.body as any).overrides).toHaveLength(2);
    expect(await current(h, a)).toBe('1200');
    expect(r.structured.entries[6].reason).toMatch(/send it as a string|whole number/);
  });

  it('fails when no entry is valid, giving the reasons and what to do, and sends nothing', async () => {
    await start({ config: { confirmWrites: 'never' } });
    const r = await h.call('set_budget_overrides', { overrides: [{ user_email: members(h)[0], limit: '1.5' }] });
    expect(r.isError).toBe(true);
    expect(r.text).toMatch(/^Nothing written: the entry could not be sent \(invalid 1\)/);
    expect(r.text).toMatch(/#0 .* invalid: limit '1\.5' is not a positive integer/);
    expect(r.text).toMatch(/Fix each entry as its reason says/);
    expect(r.structured.counts).toEqual({ invalid: 1 });
    const unknown = await h.call('set_budget_overrides', {
      overrides: [
        { user_email: 'ghost@northwind.example', limit: '5' },
        { service_account_name: 'ci-pipeline', limit: 0 },
      ],
    });
    expect(unknown.isError).toBe(true);
    expect(unknown.structured.counts).toEqual({ invalid: 1, unknown_identity: 1 });
    expect(requestsTo(h.sim, SET)).toEqual([]);
    expect(h.auditLines).toEqual([]);
  });

  it('refuses duplicates of (identity, resource, period), every occurrence', async () => {
    await start({ config: { confirmWrites: 'never' } });
    const [a, b] = members(h);
    const r = await h.call('set_budget_overrides', {
      overrides: [
        { user_email: a, limit: '10' },
        { user_email: b, limit: '20' },
        { user_email: a.toUpperCase(), limit: '30' },
      ],
    });
    expect(r.structured.entries.map((e: any) => e.status)).toEqual(['invalid', 'applied', 'invalid']);
    expect(r.structured.entries[0].reason).toMatch(/appear 2 times/);
  });

  it('clears an override, and reports re-setting the same value as unchanged without sending it', async () => {
    await start({ config: { confirmWrites: 'never' } });
    const [a] = members(h);
    await h.call('set_budget_overrides', { overrides: [{ user_email: a, limit: '500' }] });
    const cleared = await h.call('set_budget_overrides', { overrides: [{ user_email: a, limit: '' }] });
    expect(cleared.structured.entries[0]).toMatchObject({ status: 'applied', before: '500', after: '' });
    expect(await current(h, a)).toBe('');
    h.sim.clearRequests();
    const again = await h.call('set_budget_overrides', { overrides: [{ user_email: a, limit: null }] });
    expect(again.structured.entries[0].status).toBe('unchanged');
    expect(requestsTo(h.sim, SET)).toEqual([]);
  });

  it('uses the plan from ANALYTICS_BILLING_PLAN, and says so when an entry fights it', async () => {
    await start({ config: { confirmWrites: 'never', billingPlan: 'usd' }, sim: { users: 60, plan: 'usd' } });
    const [a, b] = members(h);
    const r = await h.call('set_budget_overrides', {
      overrides: [
        { user_email: a, limit: '250' },
        { user_email: b, limit: '9', resource: 'credits' },
      ],
    });
    expect(r.structured.entries.map((e: any) => [e.status, e.resource])).toEqual([
      ['applied', 'BUDGET_RESOURCE_USD_COST'],
      ['invalid', 'BUDGET_RESOURCE_CREDITS_CONSUMED'],
    ]);
  });

  it('sends 5,001 entries as two requests and accounts for every entry', async () => {
    await start({ config: { confirmWrites: 'never' }, sim: { users: 6000 } });
    const emails = members(h).slice(0, 5001);
    const r = await h.call('set_budget_overrides', {
      overrides: emails.map((e, i) => ({ user_email: e, limit: String(1000 + i) })),
    });
    const sent = requestsTo(h.sim, SET);
    expect(sent.map((s) => (s.body as any).overrides.length)).toEqual([5000, 1]);
    // Every entry counted; rows for the first ones only (the answer stays small), and the text says so.
    expect(r.structured.counts).toEqual({ applied: 5001 });
    const rows = r.structured.entries as any[];
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.length).toBeLessThanOrEqual(40);
    expect(rows.map((e) => [e.index, e.user, e.status, e.after])).toEqual(
      rows.map((_, i) => [i, emails[i], 'applied', String(1000 + i)]),
    );
    expect(r.text).toMatch(/^Done \(5,001 entries\): applied 5,001\./);
    expect(r.text).toContain(`${(5001 - rows.length).toLocaleString('en-US')} entries not listed one by one`);
    expect(await current(h, emails[5000]!)).toBe('6000');
    const ids = [...new Set(h.auditLines.map((l) => l.chunk))];
    expect(ids).toHaveLength(2);
    expect(h.auditLines.map((l) => `${l.event} ${ids.indexOf(l.chunk)}`)).toEqual([
      ...Array(5000).fill('budget_override_intent 0'),
      ...Array(5000).fill('budget_override 0'),
      'budget_override_intent 1',
      'budget_override 1',
    ]);
  }, 60_000);

  it('says which chunk failed and which were applied when the upstream breaks mid-way', async () => {
    await start({ config: { confirmWrites: 'never' }, sim: { users: 6000 } });
    const emails = members(h).slice(0, 5001);
    // The first chunk goes through; the second meets a server error, after which its outcome is unknown.
    h.sim.injectFault({ path: '/analytics/v0/set-user-budget-overrides', kind: '503', skip: 1 });
    const r = await h.call('set_budget_overrides', { overrides: emails.map((e) => ({ user_email: e, limit: '77' })) });
    expect(r.isError).toBe(true);
    expect(r.structured.chunks.map((c: any) => c.outcome)).toEqual(['applied', 'outcome_unknown']);
    expect(r.structured.counts).toEqual({ applied: 5000, outcome_unknown: 1 });
    expect(r.text).toMatch(/^INCOMPLETE/);
  }, 60_000);

  it('looks the plan up even when every entry names a resource, so a mismatch never reaches the upstream', async () => {
    await start({ config: { confirmWrites: 'never' } });
    const [a] = members(h);
    const r = await h.call('set_budget_overrides', {
      overrides: [
        { user_email: a, limit: '4321', resource: 'credits' },
        { user_email: a, limit: '99', resource: 'usd' },
      ],
    });
    expect(r.structured.entries.map((e: any) => e.status)).toEqual(['applied', 'invalid']);
    expect((requestsTo(h.sim, SET)[0]!.body as any).overrides).toHaveLength(1);
    expect(h.audit.map((x) => x.outcome)).toEqual(['applied']);
  });

  it('records a write cancelled in flight as an unknown outcome, since it may have landed', async () => {
    await start({ config: { confirmWrites: 'never' } });
    const [a] = members(h);
    h.sim.injectFault({ path: '/analytics/v0/set-user-budget-overrides', kind: 'hang' });
    const controller = new AbortController();
    const pending = h.call(
      'set_budget_overrides',
      { overrides: [{ user_email: a, limit: '31337' }] },
      { signal: controller.signal },
    );
    for (let i = 0; i < 50 && requestsTo(h.sim, SET).length === 0; i++) await new Promise((r) => setTimeout(r, 20));
    controller.abort('user stop');
    await expect(pending).rejects.toThrow();
    for (let i = 0; i < 50 && h.audit.length === 0; i++) await new Promise((r) => setTimeout(r, 20));
    expect(h.audit).toEqual([expect.objectContaining({ identity: a, after: '31337', outcome: 'unknown' })]);
  });

  it('records the intent of a chunk before sending it, and its outcome under the same chunk id after', async () => {
    await start({ config: { confirmWrites: 'never' } });
    const [a, b] = members(h);
    h.sim.injectFault({ path: '/analytics/v0/set-user-budget-overrides', kind: 'hang' });
    const controller = new AbortController();
    const pending = h.call(
      'set_budget_overrides',
      {
        overrides: [
          { user_email: a, limit: '111' },
          { user_email: b, limit: '222' },
        ],
      },
      { signal: controller.signal },
    );
    for (let i = 0; i < 100 && requestsTo(h.sim, SET).length === 0; i++) await new Promise((r) => setTimeout(r, 20));
    // The request is with the upstream and unanswered: a crash now would leave exactly this on record.
    expect(h.auditLines).toEqual([
      expect.objectContaining({
        event: 'budget_override_intent',
        chunk: expect.stringMatching(/^[0-9a-f]{16}$/),
        identity: a,
        kind: 'user',
        resource: 'BUDGET_RESOURCE_CREDITS_CONSUMED',
        period: 'BUDGET_PERIOD_MONTHLY',
        after: '111',
      }),
      expect.objectContaining({ event: 'budget_override_intent', identity: b, after: '222' }),
    ]);
    expect(h.auditLines[0]).not.toHaveProperty('outcome');
    const chunk = h.auditLines[0]!.chunk;
    expect(h.auditLines[1]!.chunk).toBe(chunk);
    controller.abort('user stop');
    await expect(pending).rejects.toThrow();
    for (let i = 0; i < 50 && h.audit.length === 0; i++) await new Promise((r) => setTimeout(r, 20));
    expect(h.audit.map((l) => [l.chunk, l.identity, l.outcome])).toEqual([
      [chunk, a, 'unknown'],
      [chunk, b, 'unknown'],
    ]);
  });

  it('sends nothing when the intent cannot be written to the audit log', async () => {
    await start({ config: { confirmWrites: 'never', auditLog: '/nonexistent-dir/oam/audit.log' } });
    const [a] = members(h);
    const before = await current(h, a);
    const r = await h.call('set_budget_overrides', { overrides: [{ user_email: a, limit: '2468' }] });
    expect(r.isError).toBe(true);
    expect(r.structured.entries[0]).toMatchObject({
      status: 'not_sent',
      reason: expect.stringMatching(/audit log could not be written.*not sent/),
    });
    expect(requestsTo(h.sim, SET)).toEqual([]);
    expect(h.auditLines).toEqual([]);
    expect(await current(h, a)).toBe(before);
  });

  it('explains a 403 from a token without the write scope', async () => {
    await start({ config: { confirmWrites: 'never', token: 'ro' } });
    const r = await h.call('set_budget_overrides', {
      overrides: [{ service_account_name: 'ci-pipeline', limit: '5' }],
    });
    expect(r.isError).toBe(true);
    expect(r.structured.entries[0]).toMatchObject({ status: 'failed', reason: expect.stringMatching(/write scope/) });
    // Refused as a whole, so known not applied: the intent is closed by a 'failed' outcome.
    expect(h.auditLines.map((l) => [l.event, l.outcome])).toEqual([
      ['budget_override_intent', undefined],
      ['budget_override', 'failed'],
    ]);
    expect(h.auditLines[1]!.chunk).toBe(h.auditLines[0]!.chunk);
  });

  it('writes one audit record per change sent', async () => {
    await start({ config: { confirmWrites: 'never' } });
    const [a, b] = members(h);
    await h.call('set_budget_overrides', {
      overrides: [
        { user_email: a, limit: '10' },
        { user_email: b, limit: 'x' },
      ],
    });
    expect(h.audit).toHaveLength(1);
    expect(h.audit[0]).toMatchObject({
      identity: a,
      kind: 'user',
      resource: 'BUDGET_RESOURCE_CREDITS_CONSUMED',
      period: 'BUDGET_PERIOD_MONTHLY',
      after: '10',
      outcome: 'applied',
    });
    expect(h.audit[0]!.before === null || typeof h.audit[0]!.before === 'string').toBe(true);
  });
});

describe('read-only mode', () => {
  it('removes the tool from the list', async () => {
    await start({ config: { readOnly: true } });
    const names = (await h.mcp.listTools()).tools.map((t) => t.name);
    expect(names).not.toContain('set_budget_overrides');
    expect(names).toContain('get_budget_overrides');
  });
});

describe('confirmation by form elicitation', () => {
  for (const era of ['legacy', 'modern'] as const) {
    for (const action of ['accept', 'decline'] as const) {
      it(`${era} client, user ${action}s: ${action === 'accept' ? 'written' : 'nothing written'}`, async () => {
        const asked: string[] = [];
        await start({
          era,
          capabilities: { elicitation: { form: {} } },
          setup: (client) =>
            client.setRequestHandler('elicitation/create', async (req: any) => {
              asked.push(req.params.message);
              return action === 'accept' ? { action: 'accept', content: { confirm: true } } : { action: 'decline' };
            }),
        });
        const [a] = members(h);
        const r = await h.call('set_budget_overrides', { overrides: [{ user_email: a, limit: '4321' }] });
        expect(asked).toHaveLength(1);
        expect(asked[0]).toMatch(/Apply 1 budget override change/);
        expect(asked[0]).toContain('4321');
        if (action === 'accept') {
          expect(r.structured.confirmation).toBe('accepted');
          expect(await current(h, a)).toBe('4321');
        } else {
          expect(r.structured.confirmation).toBe('declined');
          expect(r.text).toMatch(/Not written: the user declined/);
          expect(requestsTo(h.sim, SET)).toEqual([]);
        }
      });
    }
  }

  it('refuses to write unasked when the connection cannot tell whether the client could confirm (stateless 2025-era HTTP)', async () => {
    await start({ era: 'legacy-http', capabilities: { elicitation: { form: {} } } });
    const [a] = members(h);
    const before = await current(h, a);
    const r = await h.call('set_budget_overrides', { overrides: [{ user_email: a, limit: '4242' }] });
    expect(r.isError).toBe(true);
    expect(r.text).toMatch(
      /^Nothing was written: budget changes need the user's confirmation, and this request does not say what its client can do/,
    );
    expect(r.text).toMatch(/dry_run: true/);
    expect(r.text).toMatch(/can show a confirmation form \(elicitation\)/);
    expect(r.text).toMatch(/--confirm-writes never/);
    expect(r.text).not.toMatch(/stdio|older protocol/);
    expect(await current(h, a)).toBe(before);
    const preview = await h.call('set_budget_overrides', {
      dry_run: true,
      overrides: [{ user_email: a, limit: '4242' }],
    });
    expect(preview.isError).toBe(false);
  });

  it('writes without asking when the client cannot show a form', async () => {
    await start();
    const [a] = members(h);
    const r = await h.call('set_budget_overrides', { overrides: [{ user_email: a, limit: '99' }] });
    expect(r.structured.confirmation).toBe('not_asked');
    expect(await current(h, a)).toBe('99');
  });
});
