import { UsageError, helpPointer } from '../config/cli-options.js';
import { parseIsoDay } from '../util/utc-date.js';
import { EXPORT_KINDS, type ExportKind } from './columns.js';

export const EXPORT_FORMATS = ['csv', 'parquet'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

export interface ExportArgs {
  from: number;
  to: number;
  what: ExportKind;
  format: ExportFormat;
  out: string | undefined;
  /** Chargeback's grouping: cost_center (default), team, team:N or a directory column. */
  by?: string | undefined;
}

const OWN = ['from', 'to', 'what', 'format', 'out', 'by'] as const;
type Own = (typeof OWN)[number];

/** Takes the export's own flags out of the arguments, checked; the rest read exactly like the server's options. */
export function parseExportArgs(argv: string[], command: string): { args: ExportArgs; rest: string[] } {
  const given: Partial<Record<Own, string>> = {};
  const rest: string[] = [];
  const fail = (message: string): never => {
    throw new UsageError(`${message}\n${helpPointer(command)}`);
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const flag = OWN.find((f) => arg === `--${f}` || arg.startsWith(`--${f}=`));
    if (!flag) {
      rest.push(arg);
      continue;
    }
    const value = arg.includes('=') ? arg.slice(arg.indexOf('=') + 1) : argv[++i];
    if (value === undefined || value === '' || (value.startsWith('--') && !arg.includes('=')))
      fail(`--${flag} needs a value.`);
    given[flag] = value;
  }
  const day = (flag: 'from' | 'to') => {
    const text = given[flag] ?? fail(`--${flag} is required: a day as YYYY-MM-DD.`);
    return parseIsoDay(text) ?? fail(`--${flag} must be a day as YYYY-MM-DD, not '${text}'.`);
  };
  const from = day('from');
  const to = day('to');
  if (from > to) fail(`--from ${given.from} is after --to ${given.to}.`);
  const what = given.what ?? fail(`--what is required: ${EXPORT_KINDS.join(', ')}.`);
  if (!(EXPORT_KINDS as readonly string[]).includes(what))
    fail(`--what must be ${EXPORT_KINDS.join(', ')}, not '${what}'.`);
  const format = given.format ?? fail(`--format is required: ${EXPORT_FORMATS.join(' or ')}.`);
  if (!(EXPORT_FORMATS as readonly string[]).includes(format))
    fail(`--format must be ${EXPORT_FORMATS.join(' or ')}, not '${format}'.`);
  return {
    args: { from, to, what: what as ExportKind, format: format as ExportFormat, out: given.out, by: given.by },
    rest,
  };
}
