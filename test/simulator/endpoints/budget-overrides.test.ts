import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import * as S from '../../helpers/schemas.js';
import { simClient, type SimClient } from '../../helpers/sim.js';

let c: SimClient;
beforeAll(async () => {
  c = await simClient({ users: 300 });
});
afterAll(() => c.close());
beforeEach(() => c.sim.setPlan('credits'));

const CREDITS = 'BUDGET_RESOURCE_CREDITS_CONSUMED';
const USD = 'BUDGET_RESOURCE_USD_COST';
const MONTHLY = 'BUDGET_PERIOD_MONTHLY';
const members = () => c.sim.state.org.identities.filter((i) => i.leaveDay === Infinity);
const emailAt = (n: number) => members().filter((i) => i.kind === 'user')[n]!.id;
const entry = (email: string, limit: string, resource = CREDITS) => ({
  user_email: email,
  resource,
  period: MONTHLY,
  config: { limit },
});
const read = async (body: object = {}) =>
  S.getOverrides.parse((await c.post('get-user-budget-overrides', body)).body).overrides;
const set = async (overrides: unknown[]) => {
  const res = await c.post('set-user-budget-overrides', { overrides });
  expect(res.status, res.text).toBe(200);
  return S.setOverrides.parse(res.body).failures;
};

describe('reading overrides', () => {
  it('returns only overrides of the billing plan resource', async () => {
    const credits = await read();
    expect(credits.length).toBeGreaterThan(5);
    expect(credits.every((o) => o.resource === CREDITS)).toBe(true);
    c.sim.setPlan('usd');
    const usd = await read();
    expect(usd.length).toBeGreaterThan(2);
    expect(usd.every((o) => o.resource === USD)).toBe(true);
    expect(await read({ resource: CREDITS })).toEqual([]);
  });

  it('filters by identities, combining emails and service accounts, case-insensitive for emails only', async () => {
    const all = await read();
    const someUser = all.find((o) => 'user_email' in o)! as { user_email: string };
    const someAccount = all.find((o) => 'service_account_name' in o)! as { service_account_name: string };
    const picked = await read({
      user_emails: [someUser.user_email.toUpperCase()],
      service_account_names: [someAccount.service_account_name],
    });
    expect(picked.map((o) => ('user_email' in o ? o.user_email : o.service_account_name))).toEqual([
      someUser.user_email,
      someAccount.service_account_name,
    ]);
    const res = await c.post('get-user-budget-overrides', {
      service_account_names: [someAccount.service_account_name.toUpperCase()],
    });
    expect(res.status).toBe(400);
  });

  it('answers one 400 that lists every unknown identity', async () => {
    const res = await c.post('get-user-budget-overrides', {
      user_emails: [emailAt(0), 'ghost@northwind.example', 'nobody@elsewhere.example'],
      service_account_names: ['phantom-bot'],
    });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('InvalidArgument');
    expect(res.body.error.message).toMatch(/ghost@northwind\.example, nobody@elsewhere\.example, phantom-bot/);
    expect(res.body.error.message).not.toMatch(emailAt(0));
  });

  it('omits former members silently, even when they are named', async () => {
    const formerIndex = c.sim.state.org.identities.findIndex(
      (i) => i.leaveDay !== Infinity && i.leaveDay <= c.sim.state.today(),
    );
    expect(formerIndex).toBeGreaterThanOrEqual(0);
    c.sim.state.overrides.write(formerIndex, CREDITS, MONTHLY, '4242');
    const former = c.sim.state.org.identities[formerIndex]!.id;
    expect((await read()).some((o) => 'user_email' in o && o.user_email === former)).toBe(false);
    const named = await c.post('get-user-budget-overrides', { user_emails: [former] });
    expect(named.status).toBe(200);
    expect(named.body.overrides).toEqual([]);
  });

  it('treats empty identity lists like absent ones', async () => {
    expect(await read({ user_emails: [], service_account_names: [] })).toEqual(await read());
  });
});

describe('setting overrides', () => {
  it('applies valid entries and reports invalid ones, with status 200 (partial failure)', async () => {
    const [a, b] = [emailAt(10), emailAt(11)];
    const failures = await set([entry(a, '1500'), entry(b, '015'), entry('ghost@northwind.example', '10')]);
    expect(failures.map((f) => ('user_email' in f ? f.user_email : ''))).toEqual([b, 'ghost@northwind.example']);
    expect(failures[0]!.error_message).toMatch(/limit '015' is not valid/);
    expect(failures[1]!.error_message).toMatch(/not a member/);
    expect(await read({ user_emails: [a] })).toEqual([entry(a, '1500')]);
  });

  const limits: Array<[string, boolean]> = [
    ['1', true],
    ['999999999999999999', true],
    ['0', false],
    ['-5', false],
    ['007', false],
    ['1e3', false],
    ['1.5', false],
    ['1234567890123456789', false],
    [' 12', false],
    ['12 ', false],
    ['+12', false],
    ['١٢', false],
  ];
  it.each(limits)('limit %j is accepted: %s', async (limit, ok) => {
    const email = emailAt(20);
    const failures = await set([entry(email, limit)]);
    expect(failures.length).toBe(ok ? 0 : 1);
    if (ok) expect((await read({ user_emails: [email] }))[0]!.config.limit).toBe(limit);
  });

  it('clears an override with an empty limit, and clearing a missing one changes nothing', async () => {
    const [a, b] = [emailAt(30), emailAt(31)];
    await set([entry(a, '800')]);
    const before = (await read({ user_emails: [b] })).length;
    expect(await set([entry(a, ''), entry(b, '')])).toEqual([]);
    expect(await read({ user_emails: [a] })).toEqual([entry(a, '')]);
    expect((await read({ user_emails: [b] })).length).toBe(before === 0 ? 0 : 1);
  });

  it('fails every occurrence of a duplicated (identity, resource, period), emails compared case-insensitively', async () => {
    const [a, b] = [emailAt(40), emailAt(41)];
    await set([entry(a, '100')]);
    const failures = await set([entry(a, '200'), entry(b, '300'), entry(a.toUpperCase(), '400')]);
    expect(failures).toHaveLength(2);
    expect(failures.every((f) => /appear 2 times/.test(f.error_message))).toBe(true);
    expect((await read({ user_emails: [a] }))[0]!.config.limit).toBe('100');
    expect((await read({ user_emails: [b] }))[0]!.config.limit).toBe('300');
  });

  it('fails an entry whose resource does not match the plan, per entry', async () => {
    const [a, b] = [emailAt(50), emailAt(51)];
    const failures = await set([entry(a, '100', USD), entry(b, '200')]);
    expect(failures).toHaveLength(1);
    expect(failures[0]).toMatchObject({ user_email: a });
    expect(failures[0]!.error_message).toMatch(
      /does not match the organization's billing plan; use BUDGET_RESOURCE_CREDITS_CONSUMED/,
    );
    c.sim.setPlan('usd');
    expect(await set([entry(a, '100', USD)])).toEqual([]);
  });

  it('sets service-account overrides by exact name', async () => {
    expect(
      await set([
        { service_account_name: 'docs-generator', resource: CREDITS, period: MONTHLY, config: { limit: '9000' } },
      ]),
    ).toEqual([]);
    const failures = await set([
      { service_account_name: 'Docs-Generator', resource: CREDITS, period: MONTHLY, config: { limit: '9000' } },
    ]);
    expect(failures).toEqual([
      { service_account_name: 'Docs-Generator', error_message: expect.stringMatching(/not a member/) },
    ]);
  });

  it('takes 1 to 5000 entries per request', async () => {
    const many = (n: number) => Array.from({ length: n }, (_, i) => entry(`user${i}@nowhere.example`, '10'));
    expect((await c.post('set-user-budget-overrides', { overrides: [] })).status).toBe(400);
    expect((await c.post('set-user-budget-overrides', { overrides: many(5001) })).body.error.message).toMatch(
      /1 to 5000 entries, got 5001/,
    );
    const full = await c.post('set-user-budget-overrides', { overrides: many(5000) });
    expect(full.status).toBe(200);
    expect(full.body.failures).toHaveLength(5000);
  });

  const malformed: Array<[string, unknown, RegExp]> = [
    ['no body', undefined, /request body with an overrides array is required/],
    ['overrides not an array', { overrides: {} }, /overrides is required and must be an array/],
    [
      'an entry with no identity',
      { overrides: [{ resource: CREDITS, period: MONTHLY, config: { limit: '1' } }] },
      /overrides\[0\] must have exactly one of/,
    ],
    [
      'an entry with both identities',
      { overrides: [{ ...entry('a@b.c', '1'), service_account_name: 'ci-pipeline' }] },
      /exactly one of/,
    ],
    [
      'an entry without resource',
      { overrides: [{ user_email: 'a@b.c', period: MONTHLY, config: { limit: '1' } }] },
      /overrides\[0\].resource is required/,
    ],
    [
      'an entry with an unknown resource',
      { overrides: [entry('a@b.c', '1', 'BUDGET_RESOURCE_SEATS')] },
      /resource must be one of/,
    ],
    [
      'an entry without config',
      { overrides: [{ user_email: 'a@b.c', resource: CREDITS, period: MONTHLY }] },
      /config is required/,
    ],
    [
      'a numeric limit',
      { overrides: [{ ...entry('a@b.c', '1'), config: { limit: 5 } }] },
      /config.limit is required and must be a string/,
    ],
    ['an unknown entry field', { overrides: [{ ...entry('a@b.c', '1'), note: 'x' }] }, /'note' in overrides\[0\]/],
    [
      'an unknown config field',
      { overrides: [{ ...entry('a@b.c', '1'), config: { limit: '1', currency: 'usd' } }] },
      /'currency' in overrides\[0\].config/,
    ],
  ];
  it.each(malformed)('rejects the whole request for %s', async (_name, body, message) => {
    const before = await read();
    const res = await c.post('set-user-budget-overrides', body);
    expect(res.status).toBe(400);
    expect(res.body.error.message).toMatch(message);
    expect(await read()).toEqual(before);
  });
});
