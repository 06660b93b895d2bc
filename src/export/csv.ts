import type { ExportCell, Column } from './columns.js';

const NEEDS_QUOTES = /[",\r\n]/;

/** One field per RFC 4180: quoted when it holds a comma, a quote, CR or LF, its quotes doubled; null is empty. */
export function csvField(cell: ExportCell): string {
  if (cell === null) return '';
  const text = String(cell);
  return NEEDS_QUOTES.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** One record, CRLF-terminated as RFC 4180 has it. */
export function csvLine(cells: readonly ExportCell[]): string {
  return `${cells.map(csvField).join(',')}\r\n`;
}

export const csvHeader = (columns: readonly Column[]) => csvLine(columns.map((c) => c.name));
