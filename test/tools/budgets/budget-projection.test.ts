import { describe, expect, it } from 'vitest';
import { budgetRow, byRisk, projectionMethod, type MonthSoFar } from '../../../src/tools/budgets/budget-projection.js';
import { parseIsoDay } from '../../../src/util/utc-date.js';

// November 2026, credits: 24 complete days, today (the 25th) partial and projected.
const november: MonthSoFar = {
  completeDays: 24,
  daysInMonth: 30,
  next: parseIsoDay('2026-11-25')!,
  partial: true,
  places: 0,
};

describe('a budget row: use against the limit, and the month projected at its daily rate', () => {
  it('projects exactly at the average of the complete days, today at that rate when it has used less', () => {
    // 2,400 over 24 days is 100 a day: today 100, and 5 days after it: 3,000.
    const row = budgetRow({ complete: '2400', partial: '30' }, '5000', november);
    expect(row).toEqual({
      status: 'ok',
      limit: '5000',
      used: '2430',
      percent_used: 48.6,
      projected: '3000',
      limit_day: null,
    });
  });

  it('counts today at what it used already when that is more than the rate, and names the day the limit falls', () => {
    // Today 700 (above the rate of 100): 2,400 + 700 + 5 × 100 = 3,600 by month end; 3,100 after today, the
    // limit of 3,300 falls two days later, on the 27th.
    const row = budgetRow({ complete: '2400', partial: '700' }, '3300', november);
    expect(row).toMatchObject({ status: 'at_risk', used: '3100', projected: '3600', limit_day: '2026-11-27' });
  });

  it('says over once the use reaches the limit, cleared and no override without a percentage', () => {
    expect(budgetRow({ complete: '2400', partial: '0' }, '2400', november)).toMatchObject({
      status: 'over',
      percent_used: 100,
    });
    expect(budgetRow({ complete: '10', partial: '0' }, '', november)).toMatchObject({
      status: 'cleared',
      percent_used: null,
    });
    expect(budgetRow(undefined, null, november)).toMatchObject({ status: 'no_override', used: '0' });
  });

  it('keeps USD exact to the cent, and makes no projection on a month without a complete day', () => {
    const usd: MonthSoFar = { ...november, partial: false, places: 2, next: parseIsoDay('2026-11-25')! };
    // 100.01 over 24 days for 30 days: 125.0125, rounded to the cent.
    expect(budgetRow({ complete: '100.01', partial: '0' }, '500', usd).projected).toBe('125.01');
    const first: MonthSoFar = { ...november, completeDays: 0, next: parseIsoDay('2026-12-01')! };
    expect(budgetRow({ complete: '0', partial: '5' }, '100', first)).toMatchObject({
      projected: null,
      limit_day: null,
    });
    expect(projectionMethod(first)).toBe('No projection: the month has no complete day yet.');
  });

  it('orders the riskiest first: over, then at risk by the day the limit falls, then by share used', () => {
    const rows = [
      { user: 'ok@x.com', ...budgetRow({ complete: '240', partial: '0' }, '1000', november) },
      { user: 'late@x.com', ...budgetRow({ complete: '2400', partial: '0' }, '2950', november) },
      { user: 'over@x.com', ...budgetRow({ complete: '2400', partial: '0' }, '1000', november) },
      { user: 'soon@x.com', ...budgetRow({ complete: '2400', partial: '700' }, '3300', november) },
      { user: 'none@x.com', ...budgetRow(undefined, null, november) },
    ];
    expect(rows.sort(byRisk).map((r) => r.user)).toEqual([
      'over@x.com',
      'soon@x.com',
      'late@x.com',
      'ok@x.com',
      'none@x.com',
    ]);
  });
});
