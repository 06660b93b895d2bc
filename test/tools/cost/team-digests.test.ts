import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../../src/simulator/index.js';
import { orgChartCsv } from '../../../src/simulator/data/org-chart-csv.js';
import type { DigestName, DigestPort } from '../../../src/upstream/history-port.js';
import { storedHarness, type StoredHarness } from '../../helpers/history.js';
import { NOW } from '../../helpers/sim.js';
import { compareDecimals, sumDecimals } from '../../../src/domain/numbers.js';

/**
 * Issue 34's speed: from the store, a team's figure is a sum of per-identity sums (the digests). Each question is
 * asked twice of the same store: once summing the digests, once with them withheld (the rows by user or by day
 * answer then), and the answers must be the same to the last digit.
 */

const dir = mkdtempSync(join(tmpdir(), 'team-digests-'));
type Mode = 'digests' | 'rows' | 'without credits' | 'months only';

/** A store's digests that can be withheld, or served as a store written before the credits were kept serves them. */
function switchable(of: () => DigestPort | undefined) {
  const state = { mode: 'digests' as Mode, answered: new Map<DigestName, number>() };
  const port: DigestPort = {
    digests: async (name, days, byDay) => {
      if (state.mode === 'rows') return null;
      // As a store that keeps months beyond its days: no digest of a part of a month.
      const whole = (d: number) => new Date(d * 86_400_000).getUTCDate() === 1;
      if (state.mode === 'months only' && (!whole(days.start) || !whole(days.end + 1))) return null;
      const got = await of()?.digests(name, days, byDay);
      if (got) state.answered.set(name, (state.answered.get(name) ?? 0) + 1);
      return state.mode === 'without credits' ? (got?.map(({ credits: _c, ...d }) => d) ?? null) : (got ?? null);
    },
    names: async (ids) => (await of()?.names(ids)) ?? new Map(),
    lastId: async () => (await of()?.lastId()) ?? 0,
  };
  return { state, port };
}

interface Rig {
  stored: StoredHarness;
  state: ReturnType<typeof switchable>['state'];
  mover: string;
}

/**
 * A store of October and November's days on a billing plan, and as the directory the simulator's chart (people in
 * two teams, in none, moved in the last 60 days) with one more person moved on October 15th.
 */
async function rig(plan: 'usd' | 'credits'): Promise<Rig> {
  const sim: Simulator = await startSimulator({ users: 120, now: NOW, rateLimit: false, token: 'rw', plan });
  const chart = sim.state.orgChart();
  const mover = chart.rows.find((r) => r.user_email && r.primary !== false && !r.valid_from && !r.valid_to)!;
  const rows = chart.rows.filter((r) => r !== mover);
  rows.push({ ...mover, team: 'Moved/Before', valid_to: '2026-10-14' });
  rows.push({ ...mover, team: 'Moved/After', cost_center: 'CC-MOVED', valid_from: '2026-10-15' });
  const file = join(dir, `org-${plan}.csv`);
  writeFileSync(file, orgChartCsv({ ...chart, rows }));
  const held: { stored?: StoredHarness } = {};
  const { state, port } = switchable(() => held.stored?.history.source.digest);
  const stored = (held.stored = await storedHarness(
    { historyDays: 52, historyMonths: 1 },
    { simulator: sim, digests: port, config: { directory: file } },
  ));
  const close = stored.close;
  stored.close = async () => {
    await close();
    await sim.close();
  };
  return { stored, state, mover: mover.user_email!.toLowerCase() };
}

/** The same question from the digests and from the rows: both answers, the digests' known to be theirs. */
async function both(r: Rig, tool: string, args: Record<string, unknown>, digest: DigestName) {
  r.state.mode = 'rows';
  const rows = await r.stored.call(tool, args);
  r.state.mode = 'digests';
  r.state.answered.clear();
  const digests = await r.stored.call(tool, args);
  expect(rows.isError, rows.text).toBe(false);
  expect(digests.isError, digests.text).toBe(false);
  expect(r.state.answered.get(digest), `${tool} read the ${digest} digests`).toBeGreaterThan(0);
  return { rows: rows.structured, digests: digests.structured };
}

const rigs: Rig[] = [];
let usd: Rig;
let credits: Rig;
beforeAll(async () => {
  [usd, credits] = await Promise.all([rig('usd'), rig('credits')]);
  rigs.push(usd, credits);
}, 240_000);
afterAll(async () => {
  for (const r of rigs) await r.stored.close();
  rmSync(dir, { recursive: true, force: true });
});

const RANGE = { start_date: '2026-10-01', end_date: '2026-11-20' };

describe('cost by team from the digests', () => {
  it.each(['team', 'team:1', 'cost_center'])('equals the rows by user to the last digit (group_by %s)', async (by) => {
    for (const r of [usd, credits]) {
      const { rows, digests } = await both(r, 'get_cost_analytics', { ...RANGE, group_by: [by] }, 'billed');
      expect(digests.groups).toEqual(rows.groups);
      expect(digests.totals).toEqual(rows.totals);
      const groups = digests.groups.rows.map((g: { group: string }) => g.group);
      expect(groups).toContain('(unassigned)');
      expect(groups).toContain('(no person)');
    }
    // Someone in two teams counts in each.
    const { digests } = await both(usd, 'get_cost_analytics', { ...RANGE, group_by: ['team'] }, 'billed');
    if (by === 'team') expect(digests.groups.overlapping).toBe(true);
  });

  it('per day too: each day in its teams of that day, equal to the rows by user', async () => {
    for (const r of [usd, credits]) {
      const args = { start_date: '2026-10-10', end_date: '2026-10-20', granularity: 'day', group_by: ['team:2'] };
      const { rows, digests } = await both(r, 'get_cost_analytics', args, 'billed');
      expect(digests.groups).toEqual(rows.groups);
      const named = digests.groups.rows.map((g: { group: string }) => g.group);
      expect(named).toEqual(expect.arrayContaining(['Moved/Before · 2026-10-14', 'Moved/After · 2026-10-15']));
      expect(named).not.toContain('Moved/After · 2026-10-14');
    }
  });

  it('splits the range where the directory changes: the mover counts before and after', async () => {
    const { rows, digests } = await both(usd, 'get_cost_analytics', { ...RANGE, group_by: ['team:2'] }, 'billed');
    expect(digests.groups).toEqual(rows.groups);
    const named = digests.groups.rows.map((g: { group: string }) => g.group);
    expect(named).toEqual(expect.arrayContaining(['Moved/Before', 'Moved/After']));
  });

  it('filters by teams alike', async () => {
    const args = { ...RANGE, group_by: ['team:2'], teams: ['Engineering', 'Moved'] };
    const { rows, digests } = await both(credits, 'get_cost_analytics', args, 'billed');
    expect(digests.groups).toEqual(rows.groups);
    expect(digests.groups.rows.length).toBeGreaterThan(1);
    // The filter alone groups by the top level, and its rows are by user whether the store holds the days or not.
    for (const granularity of ['total', 'day']) {
      const only = { ...RANGE, teams: ['Engineering'], granularity };
      usd.state.mode = 'rows';
      const rows = await usd.stored.call('get_cost_analytics', only);
      usd.state.mode = 'digests';
      const stored = await usd.stored.call('get_cost_analytics', only);
      const { freshness: _a, ...a } = stored.structured;
      const { freshness: _b, ...b } = rows.structured;
      expect(a).toEqual(b);
      expect(a.rows.some((r: { user?: string }) => r.user !== undefined)).toBe(true);
      expect(a.groups.rows.length).toBeGreaterThan(0);
    }
  });

  it('reads the rows where a digest lacks the credits (a store written before they were kept)', async () => {
    usd.state.mode = 'rows';
    const rows = await usd.stored.call('get_cost_analytics', { ...RANGE, group_by: ['team'] });
    usd.state.mode = 'without credits';
    const old = await usd.stored.call('get_cost_analytics', { ...RANGE, group_by: ['team'] });
    usd.state.mode = 'digests';
    expect(old.structured.groups).toEqual(rows.structured.groups);
  });
});

describe('chargeback from the digests', () => {
  it.each(['cost_center', 'team', 'team:1'])('equals the rows by day on both plans (by %s)', async (by) => {
    for (const r of [usd, credits]) {
      const args = { start_month: '2026-10', by };
      const { rows, digests } = await both(r, 'get_chargeback', args, 'billed');
      const { freshness: _a, ...fromDigests } = digests;
      const { freshness: _b, ...fromRows } = rows;
      expect(fromDigests).toEqual(fromRows);
      expect(fromDigests.difference_usd).toMatch(/^-?0(\.0+)?$/);
      const groups = fromDigests.lines.map((l: { group: string }) => l.group);
      expect(groups).toContain('(no person)');
      expect(groups).toContain('(unassigned)');
    }
  });

  it('sums the month for everyone else and reads movers by day where only the month is stored', async () => {
    for (const r of [usd, credits]) {
      const args = { start_month: '2026-10', by: 'team' };
      const { rows } = await both(r, 'get_chargeback', args, 'billed');
      r.state.mode = 'months only';
      r.state.answered.clear();
      const months = await r.stored.call('get_chargeback', args);
      r.state.mode = 'digests';
      expect(r.state.answered.get('billed')).toBeGreaterThan(0);
      const { freshness: _a, ...fromMonths } = months.structured;
      const { freshness: _b, ...fromRows } = rows;
      expect(fromMonths).toEqual(fromRows);
    }
  });

  it.each(['model', 'product'] as const)(
    'breaks the lines down by %s from the months kept, movers by day: the same lines, each adding up',
    async (breakdown) => {
      for (const r of [usd, credits]) {
        const plain = await r.stored.call('get_chargeback', { start_month: '2026-10', by: 'team' });
        const split = await r.stored.call('get_chargeback', { start_month: '2026-10', by: 'team', breakdown });
        expect(split.isError, split.text).toBe(false);
        type Part = { key: string; billed_amount_usd: string; credits?: string };
        type Line = { group: string; billed_amount_usd: string; credits?: string; breakdown: Part[] };
        const lines = split.structured.lines as Line[];
        expect(lines.map(({ breakdown: _b, ...l }) => l)).toEqual(plain.structured.lines);
        const sum = (list: string[]) => sumDecimals(list);
        for (const l of lines) {
          expect(compareDecimals(sum(l.breakdown.map((p) => p.billed_amount_usd)), l.billed_amount_usd)).toBe(0);
          if (l.credits) expect(compareDecimals(sum(l.breakdown.map((p) => p.credits!)), l.credits)).toBe(0);
        }
        expect(lines.find((l) => l.group === 'Moved/Before')?.breakdown.length).toBeGreaterThan(0);
        // Each model's (or product's) October across the lines is the organization's, as cost analytics gives it.
        const field = breakdown === 'model' ? 'resource' : 'product';
        const org = await r.stored.call('get_cost_analytics', {
          start_date: '2026-10-01',
          end_date: '2026-10-31',
          group_by: [field],
        });
        type Row = Record<string, string | undefined> & { cost: { billed_amount_usd: string } };
        for (const row of org.structured.rows as Row[]) {
          const key = row[field] ?? '(none)';
          const parts = lines.flatMap((l) => l.breakdown.filter((p) => p.key === key));
          expect(compareDecimals(sum(parts.map((p) => p.billed_amount_usd)), row.cost.billed_amount_usd), key).toBe(0);
        }
      }
    },
  );

  it("puts the mover's October in the team of each day", async () => {
    const { digests } = await both(usd, 'get_chargeback', { start_month: '2026-10', by: 'team' }, 'billed');
    const line = (g: string) => digests.lines.find((l: { group: string }) => l.group === g);
    expect(line('Moved/Before')?.members).toBe(1);
    expect(line('Moved/After')?.members).toBe(1);
  });
});

describe('active people by team per day from the digests', () => {
  it('equals the daily lists', async () => {
    const args = { start_date: '2026-10-10', end_date: '2026-11-08', group_by: 'team' };
    const { rows, digests } = await both(usd, 'get_active_user_counts', args, 'dau');
    expect(digests.groups).toEqual(rows.groups);
    expect(digests.groups.rows.length).toBeGreaterThan(2);
    const teams = await both(credits, 'get_active_user_counts', { ...args, group_by: 'cost_center' }, 'dau');
    expect(teams.digests.groups).toEqual(teams.rows.groups);
  });
});
