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
  /** The per-person datasets' grouping (team, team:N or a directory column), as the tools' `group_by`. */
  groupBy?: string | undefined;
  /** Only identities in these teams or below them, on each day. */
  teams?: string[] | undefined;
  /** Grouped rows per day (default), or one per group over the whole range. */
  granularity?: 'day' | 'total' | undefined;
}

const OWN = ['from', 'to', 'what', 'format', 'out', 'by', 'group-by', 'teams', 'granularity'] as const;
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
    args: {
      from,
      to,
      what: what as ExportKind,
      format: format as ExportFormat,
      out: given.out,
      by: given.by,
      ...groupArgs(what as ExportKind, given, fail),
    },
    rest,
  };
}

/** --group-by, --teams and --granularity, for the per-person datasets; --by, for chargeback only. */
function groupArgs(what: ExportKind, given: Partial<Record<Own, string>>, fail: (message: string) => never) {
  const groupBy = given['group-by']?.trim();
  if (what === 'chargeback') {
    const other = (['group-by', 'teams', 'granularity'] as const).find((f) => given[f] !== undefined);
    if (other)
      fail(`--what chargeback groups with --by (cost_center, team, team:N or a column); --${other} is not for it.`);
    return {};
  }
  if (given.by !== undefined) fail(`--by is chargeback's; --what ${what} groups with --group-by.`);
  if (groupBy !== undefined && groupBy.startsWith('team:') && !/^team:[1-9]\d*$/.test(groupBy))
    fail(`--group-by ${groupBy}: levels count from 1 (team:1 is the top level).`);
  const granularity = given.granularity;
  if (granularity !== undefined && granularity !== 'day' && granularity !== 'total')
    fail(`--granularity must be day or total, not '${granularity}'.`);
  if (granularity !== undefined && groupBy === undefined)
    fail('--granularity applies to rows per group: add --group-by team (or team:N, or a directory column).');
  const teams = given.teams
    ?.split(',')
    .map((t) => t.trim())
    .filter(Boolean);
  if (teams?.length === 0) fail('--teams needs team names, comma-separated: --teams Engineering,Sales/EMEA');
  return { groupBy, teams, granularity: (granularity ?? 'day') as 'day' | 'total' };
}
