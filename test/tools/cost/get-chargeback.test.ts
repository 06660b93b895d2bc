import { describe, expect, it } from 'vitest';
import { compareDecimals, sumDecimals } from '../../../src/domain/numbers.js';
import type { Harness, ToolAnswer } from '../../helpers/mcp.js';
import { teamHarness, type TeamHarness } from '../../helpers/org/team-harness.js';

const OCTOBER = { start_date: '2026-10-01', end_date: '2026-10-31' };

type Line = { group: string; month: string; billed_amount_usd: string; credits?: string; members: number };
type Row = { user?: string; user_type?: string; start_date: string; cost: { billed_amount_usd: string } };
const billed = (rows: Array<{ billed_amount_usd: string }>) => sumDecimals(rows.map((r) => r.billed_amount_usd));
/** Equal as amounts: "1.50" and "1.5" are the same figure. */
const same = (a: string, b: string) => expect(compareDecimals(a, b), `${a} against ${b}`).toBe(0);

/** A server over a simulator on a billing plan, with the simulator's own org chart as the directory file. */
async function chartServer(t: TeamHarness, plan: 'usd' | 'credits') {
  const csv = await (await fetch(`${t.sim.url}/__sim/directory`, { headers: { authorization: 'Bearer rw' } })).text();
  return t.harness(t.file(`org-${plan}.csv`, csv));
}

/** Cost of no person, as get_cost_analytics shows it by user: bots and deleted or unresolved accounts. */
async function noPersonCost(h: Harness): Promise<string> {
  const byUser = await h.call('get_cost_analytics', { ...OCTOBER, group_by: ['user'], limit: 1000 });
  const rows = byUser.structured.rows as Row[];
  expect(rows.length).toBe(byUser.structured.total_rows);
  return billed(
    rows.filter((r) => r.user_type === 'bot' || r.user === '(deleted or unresolved account)').map((r) => r.cost),
  );
}

let usdPlan: Harness;
let creditsPlan: Harness;
const usd = teamHarness('chargeback-usd', { plan: 'usd' }, async (t) => {
  usdPlan = await chartServer(t, 'usd');
});
teamHarness('chargeback-credits', { plan: 'credits' }, async (t) => {
  creditsPlan = await chartServer(t, 'credits');
});

async function reconciles(h: Harness): Promise<ToolAnswer> {
  const whole = await h.call('get_cost_analytics', OCTOBER);
  const answer = await h.call('get_chargeback', { start_month: '2026-10', end_month: '2026-10' });
  expect(answer.isError, answer.text).toBe(false);
  const out = answer.structured;
  same(out.organization_total_usd, whole.structured.totals.billed_amount_usd);
  same(billed(out.lines), whole.structured.totals.billed_amount_usd);
  same(out.difference_usd, '0');
  expect(out.lines.every((l: Line) => l.month === '2026-10')).toBe(true);
  expect(answer.text).toContain('add up to it exactly');
  return answer;
}

describe('get_chargeback', () => {
  it('reconciles to the cent with cost analytics on a USD plan, without a credits column', async () => {
    const answer = await reconciles(usdPlan);
    expect(answer.structured.billing_plan).toBe('usd');
    expect(answer.structured.lines.some((l: Line) => 'credits' in l)).toBe(false);
    // Cost centers of the chart, people the chart leaves out, and cost of no person each have their line.
    const groups = answer.structured.lines.map((l: Line) => l.group);
    expect(groups).toContain('(unassigned)');
    const noPerson = answer.structured.lines.find((l: Line) => l.group === '(no person)');
    same(noPerson.billed_amount_usd, await noPersonCost(usdPlan));
    expect(noPerson.members).toBe(0);
    expect(answer.structured.directory.basis).toBe('today');
    expect(answer.text).toContain('Teams as of today stand for every day');
  });

  it('reconciles on a credits plan too, and gives each line its credits', async () => {
    const answer = await reconciles(creditsPlan);
    expect(answer.structured.billing_plan).toBe('credits');
    const credits = await creditsPlan.call('get_cost_analytics', OCTOBER);
    same(sumDecimals(answer.structured.lines.map((l: Line) => l.credits!)), credits.structured.totals.credits_consumed);
  });

  it('breaks each line down by model, exactly', async () => {
    const answer = await usdPlan.call('get_chargeback', { start_month: '2026-10', by: 'team:1', breakdown: 'model' });
    expect(answer.isError, answer.text).toBe(false);
    same(answer.structured.difference_usd, '0');
    for (const l of answer.structured.lines) same(billed(l.breakdown), l.billed_amount_usd);
    expect(answer.structured.lines[0].breakdown.length).toBeGreaterThan(0);
  });

  it('refuses a month not complete yet, and months in the wrong order', async () => {
    const november = await usdPlan.call('get_chargeback', { start_month: '2026-11' });
    expect(november.isError).toBe(true);
    expect(november.text).toContain('2026-11 is not complete yet');
    expect(november.text).toContain('latest complete month is 2026-10');
    const swapped = await usdPlan.call('get_chargeback', { start_month: '2026-10', end_month: '2026-09' });
    expect(swapped.isError).toBe(true);
    expect(swapped.text).toContain('swap them');
  });

  it('defaults to the previous complete month', async () => {
    const answer = await usdPlan.call('get_chargeback', {});
    expect(answer.structured.start_month).toBe('2026-10');
    expect(answer.structured.end_month).toBe('2026-10');
  });

  it('folds groups under the minimum size in pseudonymous answers and still reconciles', async () => {
    const h = await usd.harness(`${usd.dir}/org-usd.csv`, { config: { pii: 'pseudonymous', minGroupSize: 8 } });
    const answer = await h.call('get_chargeback', { start_month: '2026-10', by: 'team' });
    expect(answer.isError, answer.text).toBe(false);
    const out = answer.structured;
    expect(out.folded).toBe(true);
    for (const l of out.lines as Line[]) if (!l.group.startsWith('(')) expect(l.members).toBeGreaterThanOrEqual(8);
    same(out.difference_usd, '0');
    expect(answer.text).toContain('folded');
  });

  it('splits a mover mid-month by day, and puts people missing from the directory in (unassigned)', async () => {
    const byUser = await usdPlan.call('get_cost_analytics', { ...OCTOBER, group_by: ['user'], limit: 5 });
    const [mover, stayer] = (byUser.structured.rows as Row[]).map((r) => r.user!).filter((u) => u.includes('@'));
    const file = usd.file(
      'moves.csv',
      'user_email,team,valid_from,valid_to\n' +
        `${mover},Sales,,2026-10-14\n${mover},Eng/Platform,2026-10-15,\n${stayer},Eng/Platform,,\n`,
    );
    const h = await usd.harness(file);
    const answer = await h.call('get_chargeback', { start_month: '2026-10', by: 'team' });
    expect(answer.isError, answer.text).toBe(false);
    const line = (g: string) => (answer.structured.lines as Line[]).find((l) => l.group === g)!;
    const daily = async (who: string) =>
      (await h.call('get_cost_analytics', { ...OCTOBER, granularity: 'day', filters: { user_emails: [who] } }))
        .structured.rows as Row[];
    const moverDays = await daily(mover!);
    const before = moverDays.filter((r) => r.start_date < '2026-10-15').map((r) => r.cost);
    const after = moverDays.filter((r) => r.start_date >= '2026-10-15').map((r) => r.cost);
    expect(before.length).toBeGreaterThan(0);
    expect(after.length).toBeGreaterThan(0);
    same(line('Sales').billed_amount_usd, billed(before));
    expect(line('Sales').members).toBe(1);
    same(line('Eng/Platform').billed_amount_usd, billed([...after, ...(await daily(stayer!)).map((r) => r.cost)]));
    expect(line('Eng/Platform').members).toBe(2);
    // Everyone else the directory does not name, and their cost is there, not dropped.
    const whole = await h.call('get_cost_analytics', OCTOBER);
    same(
      line('(unassigned)').billed_amount_usd,
      sumDecimals([
        whole.structured.totals.billed_amount_usd,
        `-${line('Sales').billed_amount_usd}`,
        `-${line('Eng/Platform').billed_amount_usd}`,
        `-${line('(no person)').billed_amount_usd}`,
      ]),
    );
    same(answer.structured.difference_usd, '0');
  });

  it('is refused without a directory, saying how to give one', async () => {
    const h = await usd.harness(undefined);
    const answer = await h.call('get_chargeback', {});
    expect(answer.isError).toBe(true);
    expect(answer.text).toContain('--directory FILE');
  });
});
