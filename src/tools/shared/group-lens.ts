import { foldSmallGroups } from '../../directory/small-groups.js';
import { formatDay } from '../../util/utc-date.js';
import type { GroupLens } from '../../insights/anomaly-groups.js';
import type { OrgScope } from './org-groups.js';
import type { ToolContext } from '../types.js';

/**
 * The directory as the insights read it day by day: an identity's groups on a day (none when outside the teams
 * asked for), the parts of the range where membership holds still, and how small groups fold. `teams` alone
 * groups by the top level.
 */
export function groupLens(ctx: ToolContext, scope: OrgScope): GroupLens {
  const by = scope.by ?? { kind: 'team' as const, depth: 1 };
  const { directory } = scope.view;
  return {
    parts: scope.parts,
    groupsOn(identity, day) {
      const d = formatDay(day);
      if (scope.teams && !directory.inTeams(identity, d, scope.teams)) return [];
      return directory.groupsOn(identity, d, by);
    },
    filtered: scope.teams !== undefined,
    // As groupFigures folds: with pseudonymous answers, no group's figure may reveal one person.
    shownAs(people) {
      if (ctx.config.pii !== 'pseudonymous' || !ctx.org) return new Map();
      const sizes = new Map([...people].map(([g, ids]) => [g, ids.size]));
      return foldSmallGroups(sizes, ctx.org.minGroupSize, (g) => by.kind === 'team' && !g.startsWith('('));
    },
  };
}
