import { afterEach, describe, expect, it } from 'vitest';
import { startSimulator } from '../../../src/simulator/index.js';
import { harness, truth, type Harness, type HarnessOptions } from '../../helpers/mcp.js';
import { requestsTo } from '../../helpers/client.js';
import { NOW } from '../../helpers/sim.js';
import { teamHarness } from '../../helpers/org/team-harness.js';

const SET = 'set-user-budget-overrides';
let file: string;
let h: Harness | undefined;
let users: string[];
let account: string;

const org = teamHarness('team-budgets', { users: 120, readToken: 'ro' }, async (t) => {
  const current = t.sim.state.org.identities.filter((i) => i.leaveDay === Infinity);
  users = current.filter((i) => i.kind === 'user').map((i) => i.id);
  account = current.find((i) => i.kind !== 'user')!.id;
  // Sales/EMEA: three people and a service account; Sales/US: two; Engineering: two; the rest in no team.
  const rows = [
    ...users.slice(0, 3).map((u) => `${u.toUpperCase()},,Sales/EMEA,CC-1`),
    `,${account},Sales/EMEA,CC-1`,
    ...users.slice(3, 5).map((u) => `${u},,Sales/US,CC-2`),
    ...users.slice(5, 7).map((u) => `${u},,Engineering,CC-3`),
  ];
  file = t.file('org.csv', ['user_email,service_account_name,team,cost_center', ...rows].join('\n') + '\n');
});
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const start = async (options: HarnessOptions = {}) => (h = await org.harness(file, options));
const limits = async () =>
  new Map<string, string>(
    (await truth(org.sim, 'get-user-budget-overrides', {}, {})).overrides.map((o: any) => [
      o.user_email ?? o.service_account_name,
      o.config.limit,
    ]),
  );

describe('set_budget_overrides for a team', () => {
  it('previews every member of the team and the teams below it, writing nothing', async () => {
    const hh = await start();
    org.sim.clearRequests();
    const r = await hh.call('set_budget_overrides', { team: 'sales', limit: '4242', dry_run: true });
    expect(r.isError).toBe(false);
    expect(r.structured.team).toMatchObject({ name: 'sales', members: 6 });
    expect(r.structured.entries.map((e: any) => e.user).sort()).toEqual([...users.slice(0, 5), account].sort());
    expect(r.structured.entries.every((e: any) => e.after === '4242')).toBe(true);
    expect(r.text).toMatch(/^Team sales: 6 members as of \d{4}-\d{2}-\d{2}\.\nDry run, nothing written \(6 entries\)/);
    expect(requestsTo(org.sim, SET)).toEqual([]);
    expect(hh.auditLines).toEqual([]);
  });

  it('writes exactly the members once confirmed, and audits it like any write', async () => {
    const hh = await start({ config: { confirmWrites: 'never' } });
    const before = await limits();
    const r = await hh.call('set_budget_overrides', { team: 'Sales/EMEA', limit: 31337, resource: 'credits' });
    expect(r.isError).toBe(false);
    expect(r.structured.counts.applied ?? 0).toBe(4 - (r.structured.counts.unchanged ?? 0));
    const after = await limits();
    const team = new Set([...users.slice(0, 3), account]);
    for (const id of team) expect(after.get(id)).toBe('31337');
    for (const [id, limit] of after) if (!team.has(id)) expect(limit).toBe(before.get(id));
    expect(new Set(hh.audit.map((a) => a.identity))).toEqual(team);
    expect(hh.auditLines.filter((l) => l.event === 'budget_override_intent')).toHaveLength(4);
  });

  it('asks the user to confirm, and writes nothing when declined', async () => {
    const asked: string[] = [];
    const hh = await start({
      capabilities: { elicitation: { form: {} } },
      setup: (client) =>
        client.setRequestHandler('elicitation/create', async (req: any) => {
          asked.push(req.params.message);
          return { action: 'decline' };
        }),
    });
    org.sim.clearRequests();
    const r = await hh.call('set_budget_overrides', { team: 'Engineering', limit: '777' });
    expect(asked).toHaveLength(1);
    expect(r.structured.confirmation).toBe('declined');
    expect(requestsTo(org.sim, SET)).toEqual([]);
  });

  it('refuses an empty team, team with overrides, a team without a limit, and teams without a directory', async () => {
    const hh = await start();
    const empty = await hh.call('set_budget_overrides', { team: 'Marketing', limit: '1' });
    expect(empty.isError).toBe(true);
    expect(empty.text).toContain('no members');
    const both = await hh.call('set_budget_overrides', {
      team: 'Sales',
      limit: '1',
      overrides: [{ user_email: users[0], limit: '1' }],
    });
    expect(both.isError).toBe(true);
    expect(both.text).toContain('either overrides or team');
    const noLimit = await hh.call('set_budget_overrides', { team: 'Sales' });
    expect(noLimit.isError).toBe(true);
    expect(noLimit.text).toContain('needs a limit');
    await hh.close();
    h = await org.harness(undefined);
    const none = await h.call('set_budget_overrides', { team: 'Sales', limit: '1', dry_run: true });
    expect(none.isError).toBe(true);
    expect(none.text).toContain('--directory FILE');
    const status = await h.call('get_budget_status', { group_by: 'team' });
    expect(status.isError).toBe(true);
    expect(status.text).toContain('--directory FILE');
  });
});

describe('get_budget_status by team', () => {
  it('sums each group exactly, and the groups with (unassigned) make the organization total', async () => {
    const hh = await start({ config: { confirmWrites: 'never', billingPlan: 'credits' } });
    await hh.call('set_budget_overrides', { team: 'Sales', limit: '5000' });
    const whole = await hh.call('get_budget_status', { limit: 1000 });
    const r = await hh.call('get_budget_status', { group_by: 'team', limit: 1000 });
    expect(r.isError).toBe(false);
    const g = r.structured.groups;
    expect(g.overlapping).toBe(false);
    const sum = (key: string) => g.rows.reduce((n: bigint, row: any) => n + BigInt(row.values[key]), 0n);
    expect(String(sum('limit'))).toBe(String(g.total.values.limit));
    expect(String(sum('used'))).toBe(String(g.total.values.used));
    const rows = whole.structured.rows as any[];
    const orgLimit = rows.reduce((n, row) => n + BigInt(row.limit || '0'), 0n);
    expect(String(g.total.values.limit)).toBe(String(orgLimit));
    expect(g.total.members).toBe(rows.length);
    const emea = g.rows.find((row: any) => row.group === 'Sales/EMEA');
    expect(emea).toMatchObject({ members: 4, values: { limit: '20000' } });
    expect(g.rows.map((row: any) => row.group)).toContain('(unassigned)');
    expect(r.text).toContain('By team');

    const sales = await hh.call('get_budget_status', { teams: ['Sales'], group_by: 'team:1', limit: 1000 });
    expect(sales.structured.total_rows).toBe(6);
    expect(sales.structured.groups.rows).toEqual([
      expect.objectContaining({ group: 'Sales', members: 6, values: expect.objectContaining({ limit: '30000' }) }),
    ]);
  });
});

describe('a team over the API limit of one request', () => {
  it('is written in requests of at most 5000 entries', async () => {
    const big = await startSimulator({ users: 6000, now: NOW, rateLimit: false, token: 'rw' });
    const people = big.state.org.identities
      .filter((i) => i.kind === 'user' && i.leaveDay === Infinity)
      .slice(0, 5001)
      .map((i) => `${i.id},,Everyone/All`);
    const bigFile = org.file('big.csv', ['user_email,service_account_name,team', ...people].join('\n') + '\n');
    const hh = await harness({ simulator: big, config: { directory: bigFile, confirmWrites: 'never' } });
    try {
      big.clearRequests();
      const r = await hh.call('set_budget_overrides', { team: 'Everyone', limit: '123', resource: 'credits' });
      expect(r.structured.team.members).toBe(5001);
      expect(requestsTo(big, SET).map((s) => (s.body as any).overrides.length)).toEqual([5000, 1]);
      expect(r.structured.counts.applied).toBe(5001);
    } finally {
      await hh.close();
      await big.close();
    }
  }, 120_000);
});
