import type { ChartRow, OrgChart } from './org-chart.js';

/** The columns of a directory file (issue 34's Interface), in the order the simulator writes them. */
export const CHART_COLUMNS = [
  'user_email',
  'service_account_name',
  'team',
  'cost_center',
  'manager',
  'location',
  'primary',
  'valid_from',
  'valid_to',
] as const;

/** RFC 4180: a field with a comma, a quote or a line break is quoted, its quotes doubled. */
const field = (value: string) => (/[",\r\n]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value);

const cell = (row: ChartRow, column: (typeof CHART_COLUMNS)[number]) => {
  const v = row[column];
  return v === undefined ? '' : field(String(v));
};

/** The chart as the CSV an HR export would be: a header, then one line per row. */
export function orgChartCsv(chart: OrgChart): string {
  const lines = [CHART_COLUMNS.join(',')];
  for (const row of chart.rows) lines.push(CHART_COLUMNS.map((c) => cell(row, c)).join(','));
  return `${lines.join('\n')}\n`;
}
