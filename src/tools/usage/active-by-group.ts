import { UserInputError } from '../../errors.js';
import { dau } from '../../upstream/endpoints/dau.js';
import { listAll } from '../../upstream/listing/list-all.js';
import { identityKey } from '../../upstream/listing/merge.js';
import { parseIsoDay } from '../../util/utc-date.js';
import { groupFigures, orgScope } from '../shared/org-groups.js';
import type { ToolContext } from '../types.js';

/** Distinct people per group per day asks one list of people a day: a quarter at most. */
const MAX_DAYS = 92;

/**
 * Active people per group and day (issue 34): each day's list of active identities (the history store's daily
 * lists when it holds them), each person counted once a day in each of their groups on that day. A group's
 * values are its count by date; the total's are the organization's daily counts.
 */
export async function activeByGroup(
  ctx: ToolContext,
  args: { group_by?: string | undefined; teams?: string[] | undefined },
  dates: readonly string[],
) {
  if (!dates.length) return undefined;
  const range = { start: parseIsoDay(dates[0]!)!, end: parseIsoDay(dates.at(-1)!)! };
  const scope = await orgScope(ctx, range, args);
  if (!scope) return undefined;
  if (dates.length > MAX_DAYS)
    throw new UserInputError(`Active people by team cover ${MAX_DAYS} days at most: ask for a shorter range.`);
  const by = scope.by ?? { kind: 'team' as const, depth: 1 };
  const parts = [];
  for (const date of dates) {
    const day = parseIsoDay(date)!;
    const rows = (await listAll(ctx, dau, { days: { start: day, end: day } })).data.map((r) => ({
      id: identityKey(r),
      date,
    }));
    parts.push({ part: { start: day, end: day }, rows });
  }
  return groupFigures(
    ctx,
    { ...scope, by },
    parts,
    (r) => r.id,
    (r) => ({ [r.date]: 1 }),
  );
}
