import { parse } from 'csv-parse/sync';
import type { DirectoryRow } from './directory-row.js';

/**
 * The directory file (issue 34's Interface): CSV with a header row, or JSON lines with the same fields. One row per
 * identity and team: `user_email` or `service_account_name`, and `team` (a path, `/` between levels), with optional
 * `cost_center`, `manager`, `location`, `primary`, `valid_from` and `valid_to`; any other column is an attribute.
 * A file with any problem is refused whole, each problem named by line (the header is line 1) and column.
 */

export const MAX_FILE_BYTES = 64 * 1024 * 1024;
const SHOWN = 20;
const KNOWN = new Set(['user_email', 'service_account_name', 'team', 'primary', 'valid_from', 'valid_to']);
const EMAIL = /^[^\s@]+@[^\s@]+$/;
const DAY = /^\d{4}-\d{2}-\d{2}$/;

export class DirectoryFileError extends Error {
  readonly kind = 'directory_file';
  constructor(
    readonly file: string,
    readonly problems: readonly string[],
  ) {
    const shown = problems.slice(0, SHOWN);
    const more = problems.length > SHOWN ? `\n  and ${problems.length - SHOWN} more` : '';
    super(
      `The directory file ${file} was refused (${problems.length} problem${problems.length === 1 ? '' : 's'}); fix it and save it again:\n  ${shown.join('\n  ')}${more}`,
    );
    this.name = 'DirectoryFileError';
  }
}

const validDay = (text: string) =>
  DAY.test(text) &&
  !Number.isNaN(Date.parse(`${text}T00:00:00Z`)) &&
  new Date(`${text}T00:00:00Z`).toISOString().startsWith(text);

/** The records of the file, each with the line it starts on, as column → text. */
function records(text: string, jsonLines: boolean): Array<{ line: number; fields: Record<string, string> }> {
  if (jsonLines)
    return text.split('\n').flatMap((raw, i) => {
      if (!raw.trim()) return [];
      let value: unknown;
      try {
        value = JSON.parse(raw);
      } catch {
        throw new DirectoryFileError('', [`line ${i + 1}: not a JSON object`]);
      }
      if (!value || typeof value !== 'object' || Array.isArray(value))
        throw new DirectoryFileError('', [`line ${i + 1}: not a JSON object`]);
      const fields = Object.fromEntries(
        Object.entries(value).map(([k, v]) => [k, v === null || v === undefined ? '' : String(v)]),
      );
      return [{ line: i + 1, fields }];
    });
  const rows = parse(text, {
    columns: true,
    bom: true,
    skip_empty_lines: true,
    trim: true,
    info: true,
    relax_column_count: false,
  }) as Array<{
    record: Record<string, string>;
    info: { lines: number };
  }>;
  return rows.map((r) => ({ line: r.info.lines, fields: r.record }));
}

/** Parses a directory file's text into rows, or throws DirectoryFileError naming every problem. */
export function parseDirectoryFile(file: string, text: string): DirectoryRow[] {
  if (Buffer.byteLength(text) > MAX_FILE_BYTES)
    throw new DirectoryFileError(file, [`larger than ${MAX_FILE_BYTES / 1024 / 1024} MB`]);
  const jsonLines = /\.(jsonl|ndjson)$/i.test(file) || text.trimStart().startsWith('{');
  let parsed: ReturnType<typeof records>;
  try {
    parsed = records(text, jsonLines);
  } catch (error) {
    if (error instanceof DirectoryFileError) throw new DirectoryFileError(file, error.problems);
    const message = (error as Error).message.replace(/^Invalid Record Length: /, '');
    const m = /columns length is (\d+), got (\d+) on line (\d+)/.exec(message);
    throw new DirectoryFileError(file, [m ? `line ${m[3]}: ${m[2]} columns where the header has ${m[1]}` : message]);
  }
  const problems: string[] = [];
  if (!jsonLines) {
    const header = text
      .split('\n', 1)[0]!
      .replace(/^\uFEFF/, '')
      .split(',')
      .map((h) => h.trim().replace(/^"|"$/g, ''));
    if (!header.includes('team')) problems.push('line 1: the column "team" is missing');
    if (!header.includes('user_email') && !header.includes('service_account_name'))
      problems.push('line 1: the column "user_email" or "service_account_name" is missing');
    if (problems.length) throw new DirectoryFileError(file, problems);
  }
  const columnOf = (name: string, fields: Record<string, string>) =>
    jsonLines ? `"${name}"` : `column ${Object.keys(fields).indexOf(name) + 1} (${name})`;
  const rows: DirectoryRow[] = [];
  for (const { line, fields } of parsed) {
    const at = (name: string, what: string) => problems.push(`line ${line}, ${columnOf(name, fields)}: ${what}`);
    const email = fields.user_email?.trim() ?? '';
    const account = fields.service_account_name?.trim() ?? '';
    if (!email && !account) problems.push(`line ${line}: neither user_email nor service_account_name is set`);
    else if (email && account) at('service_account_name', 'give user_email or service_account_name, not both');
    else if (email && !EMAIL.test(email)) at('user_email', `"${email.slice(0, 80)}" is not an email`);
    const team = (fields.team ?? '').split('/').map((p) => p.trim());
    if (fields.team === undefined) problems.push(`line ${line}: "team" is missing`);
    else if (fields.team.trim() && team.some((p) => !p)) at('team', `"${fields.team}" has an empty level`);
    const primary = fields.primary?.trim().toLowerCase() ?? '';
    if (primary && primary !== 'true' && primary !== 'false') at('primary', `"${fields.primary}" is not true or false`);
    const from = fields.valid_from?.trim() ?? '';
    const to = fields.valid_to?.trim() ?? '';
    if (from && !validDay(from)) at('valid_from', `"${from}" is not a date YYYY-MM-DD`);
    if (to && !validDay(to)) at('valid_to', `"${to}" is not a date YYYY-MM-DD`);
    if (from && to && validDay(from) && validDay(to) && from > to) at('valid_to', `${to} is before valid_from ${from}`);
    const attributes: Record<string, string> = {};
    for (const [name, value] of Object.entries(fields))
      if (!KNOWN.has(name) && value.trim()) attributes[name] = value.trim();
    rows.push({
      identity: email ? `u:${email.toLowerCase()}` : `s:${account}`,
      team: fields.team?.trim() ? team : [],
      ...(primary ? { primary: primary === 'true' } : {}),
      attributes,
      ...(from ? { validFrom: from } : {}),
      ...(to ? { validTo: to } : {}),
    });
  }
  if (problems.length) throw new DirectoryFileError(file, problems);
  return rows;
}
