import { describe, expect, it } from 'vitest';
import { sumDecimals } from '../../../src/domain/numbers.js';
import type { Harness } from '../../helpers/mcp.js';
import { teamHarness } from '../../helpers/org/team-harness.js';

let h: Harness;
let pseudo: Harness;
const RANGE = { start_date: '2026-10-01', end_date: '2026-10-31' };

teamHarness('cost-team', {}, async (t) => {
  // Each person in their primary team only, so that no one counts in two groups.
  const file = t.chartFile('org.csv', { primaryOnly: true });
  h = await t.harness(file);
  pseudo = await t.harness(file, { config: { pii: 'pseudonymous', minGroupSize: 8 } });
});

describe('cost by team', () => {
  it('adds up, with (unassigned) and cost of no person, to the organization total to the cent', async () => {
    const whole = await h.call('get_cost_analytics', RANGE);
    const byTeam = await h.call('get_cost_analytics', { ...RANGE, group_by: ['team:2'] });
    expect(byTeam.isError).toBe(false);
    const g = byTeam.structured.groups;
    expect(g.overlapping).toBe(false);
    const sum = sumDecimals(g.rows.map((r: { values: { billed_amount_usd: string } }) => r.values.billed_amount_usd));
    expect(sum).toBe(g.total.values.billed_amount_usd);
    expect(Number(sum)).toBeCloseTo(Number(whole.structured.totals.billed_amount_usd), 6);
    expect(sumDecimals([sum, '0'])).toBe(sumDecimals([whole.structured.totals.billed_amount_usd, '0']));
    // Not grouped by user: no person's row is shown.
    expect(byTeam.structured.rows).toEqual([]);
    expect(byTeam.text).toContain('By team:2');
  });

  it('combines a team with another key, and folds small groups in pseudonymous answers', async () => {
    const combo = await h.call('get_cost_analytics', { ...RANGE, group_by: ['cost_center', 'product'] });
    expect(combo.structured.groups.rows.some((r: { group: string }) => r.group.includes(' · '))).toBe(true);
    const folded = await pseudo.call('get_cost_analytics', { ...RANGE, group_by: ['team'] });
    const g = folded.structured.groups;
    expect(g.folded).toBe(true);
    for (const r of g.rows) if (!r.group.startsWith('(no person')) expect(r.members).toBeGreaterThanOrEqual(8);
    expect(sumDecimals(g.rows.map((r: { values: { billed_amount_usd: string } }) => r.values.billed_amount_usd))).toBe(
      g.total.values.billed_amount_usd,
    );
  });

  it('refuses two directory groupings at once', async () => {
    const two = await h.call('get_cost_analytics', { ...RANGE, group_by: ['team', 'cost_center'] });
    expect(two.isError).toBe(true);
    expect(two.text).toContain('one directory grouping');
  });
});
