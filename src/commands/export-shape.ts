import { EXIT_FAILURE } from '../config/cli-options.js';
import { parseGroupBy, type GroupBy } from '../directory/group-by.js';
import type { OrgView } from '../directory/org-view.js';
import { SHAPES, type DerivedShape, type ExportShape, type Masks, type StoredKind } from '../export/columns.js';
import type { ExportArgs } from '../export/export-args.js';
import type { Runtime } from '../runtime/runtime.js';
import { formatDay } from '../util/utc-date.js';
import { usageError } from './command-opening.js';
import { chargebackExport } from './export-chargeback.js';
import { orgExport } from './export-groups.js';

/**
 * What an export writes: the stored records as they are, or, with the directory over the days asked, chargeback
 * lines, rows per group, or the records of the teams asked. An exit code when the directory it needs is missing.
 */
export async function exportShape(
  args: ExportArgs,
  runtime: Pick<Runtime, 'org' | 'orgState' | 'config'>,
  masks: Masks,
  say: (line: string) => void,
): Promise<ExportShape | DerivedShape | number> {
  const needs =
    args.what === 'chargeback'
      ? '--what chargeback'
      : args.groupBy !== undefined
        ? '--group-by'
        : args.teams !== undefined
          ? '--teams'
          : undefined;
  if (!needs) return SHAPES[args.what as StoredKind];
  const range: [string, string] = [formatDay(args.from), formatDay(args.to)];
  const view = await runtime.org?.over(...range);
  if (!view) {
    const refused = runtime.orgState?.problem;
    say(
      refused
        ? `${needs}: the directory was refused, so no group can be given: ${refused}`
        : `${needs} needs a directory: add --directory FILE (a CSV of user_email, team, cost_center…)`,
    );
    return EXIT_FAILURE;
  }
  if (view.problem) say(`the directory's latest version was refused, the last good one is used: ${view.problem}`);
  const fold = runtime.config.pii === 'pseudonymous' ? runtime.org!.minGroupSize : undefined;
  if (args.what === 'chargeback') return chargebackExport(view, grouping('--by', args.by ?? 'cost_center', view), fold);
  return orgExport({
    kind: args.what,
    directory: view.directory,
    by: args.groupBy === undefined ? undefined : grouping('--group-by', args.groupBy, view),
    teams: args.teams,
    granularity: args.granularity ?? 'day',
    range,
    fold,
    masks,
    say,
  });
}

/** `team`, `team:N` or one of the directory's columns; anything else is a usage error that lists the columns. */
function grouping(flag: string, text: string, view: OrgView): GroupBy {
  const t = text.trim();
  const columns = view.directory.attributeNames;
  if (t === 'team' || /^team:[1-9]\d*$/.test(t) || columns.includes(t)) return parseGroupBy(t, columns);
  throw usageError(
    'export',
    `${flag} '${t}' is not known: use team, team:N (the first N levels)${
      columns.length
        ? ` or one of the directory's columns: ${columns.join(', ')}`
        : ' (the directory has no other columns)'
    }.`,
  );
}
