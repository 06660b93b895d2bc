import { hourText } from '../domain/published-days.js';

/** What the server tells every client on connecting: how to read dates and totals. */
export const instructions = (refreshHour: number) =>
  `Usage analytics, costs and budgets of one organization's AI coding product. Dates are UTC; a day is complete from ${hourText(refreshHour)} the next day (credit usage also has today, partially). ` +
  'Prefer `range` (last_30_days, previous_month…) over computing dates. Totals in answers cover all rows, not only those shown.';
