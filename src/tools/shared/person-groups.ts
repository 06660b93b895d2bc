import type { DayRange } from '../../domain/dates.js';
import { identityKey, type IdentityRef } from '../../upstream/listing/merge.js';
import type { Listed } from './listing.js';
import { dayRangeOf, inScope, orgScope, partRows } from './org-groups.js';
import { groupFigures } from './group-figures.js';
import { userMatcher } from './rows.js';
import type { ToolContext } from '../types.js';

type Values = Record<string, number | string>;

/**
 * What a per-person listing tool adds for the directory: its rows kept to the `teams` asked for, and the groups
 * block when `group_by` asks for one (each part of the range read with `readPart`, the `users` filter applied).
 */
export async function personGroups<R extends IdentityRef>(
  ctx: ToolContext,
  args: { group_by?: string | undefined; teams?: string[] | undefined; users?: string[] | undefined },
  listed: Listed<R>,
  readPart: (days: DayRange) => Promise<readonly R[]>,
  valuesOf: (row: R) => Values,
) {
  const scope = await orgScope(ctx, dayRangeOf(listed.start, listed.end), args);
  if (!scope) return { kept: listed.matching, groups: undefined };
  const kept = listed.matching.filter((r) => scope.parts.some((p) => inScope(scope, identityKey(r), p)));
  if (!scope.by) return { kept, groups: undefined };
  const match = await userMatcher(args.users, ctx);
  const parts = await partRows(scope, listed.matching, async (days) =>
    (await readPart(days)).filter((r) => !match || match(r)),
  );
  return { kept, groups: groupFigures(ctx, { ...scope, by: scope.by }, parts, identityKey, valuesOf) };
}
