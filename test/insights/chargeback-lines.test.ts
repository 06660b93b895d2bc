import { describe, expect, it } from 'vitest';
import { NO_PERSON, chargebackLines, reconcile } from '../../src/insights/chargeback-lines.js';
import type { CostPoint } from '../../src/upstream/endpoints/cost-analytics.js';

const point = (
  day: string,
  who: { user_email?: string; service_account_name?: string } | null,
  usd: string,
  model = 'm1',
): CostPoint => ({
  start_date: day,
  end_date: day,
  cost_metrics: {
    billed_amount_usd: usd,
    estimated_customer_cost_usd: usd,
    base_cost_usd: '0',
    surcharge_usd: usd,
    input_tokens: 1,
    output_tokens: 1,
    cache_read_tokens: 0,
    cache_write_tokens: 0,
    credits_consumed: '1.5',
  },
  group_by_values: {
    resource_display_name: model,
    product_display_name: 'Chat',
    user_info: who
      ? { user_type: 'COST_ANALYTICS_USER_TYPE_USER', ...who }
      : { user_type: 'COST_ANALYTICS_USER_TYPE_USER' },
  },
});

// Ann moves from Sales to Eng on 10-15; Bo is in no team; a deleted account has no person.
const groupOf = (id: string, day: string) =>
  id === 'u:ann@x.com' ? (day < '2026-10-15' ? 'Sales' : 'Eng') : id === 's:ci-bot' ? 'Eng' : '(unassigned)';

const points = [
  point('2026-10-14', { user_email: 'Ann@X.com' }, '0.10'),
  point('2026-10-15', { user_email: 'ann@x.com' }, '0.20', 'm2'),
  point('2026-10-15', { service_account_name: 'ci-bot' }, '1.000001'),
  point('2026-10-16', { user_email: 'bo@x.com' }, '0.30'),
  point('2026-10-16', null, '0.05'),
  point('2026-11-01', { user_email: 'ann@x.com' }, '0.40'),
];

describe('chargeback lines', () => {
  it('puts each day of a mover in the team of that day, and cost of no person on its own line', () => {
    const lines = chargebackLines(points, groupOf);
    expect(lines.map((l) => [l.month, l.group, l.billed_amount_usd, l.members])).toEqual([
      ['2026-10', '(no person)', '0.05', 0],
      ['2026-10', '(unassigned)', '0.30', 1],
      ['2026-10', 'Eng', '1.200001', 2],
      ['2026-10', 'Sales', '0.10', 1],
      ['2026-11', 'Eng', '0.40', 1],
    ]);
    expect(lines.find((l) => l.group === NO_PERSON)!.credits).toBe('1.5');
  });

  it('adds up to the organization total exactly, and says the difference', () => {
    const lines = chargebackLines(points, groupOf);
    expect(reconcile(lines, '2.050001')).toEqual({ lines_total_usd: '2.050001', difference_usd: '0.000000' });
    expect(reconcile(lines, '2.06').difference_usd).toBe('0.009999');
  });

  it('breaks a line down by model', () => {
    const eng = chargebackLines(points, groupOf, 'model').find((l) => l.month === '2026-10' && l.group === 'Eng')!;
    expect(eng.breakdown).toEqual([
      { key: 'm1', billed_amount_usd: '1.000001', credits: '1.5' },
      { key: 'm2', billed_amount_usd: '0.20', credits: '1.5' },
    ]);
  });
});
