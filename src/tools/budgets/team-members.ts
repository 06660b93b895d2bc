import { UserInputError } from '../../errors.js';
import { formatDay } from '../../util/utc-date.js';
import type { EntryInput } from './budget-entries.js';
import type { ToolContext } from '../types.js';

/** Without a directory there are no teams to name. */
export const NEEDS_DIRECTORY =
  'Teams need a directory: start the server with --directory FILE (a CSV of user_email, team, cost_center…) or SCIM provisioning.';

/** The team's members as of the call (the team and every team below it, service accounts included). */
export async function teamMembers(ctx: ToolContext, team: string): Promise<{ day: string; members: string[] }> {
  const day = formatDay(ctx.client.today());
  const view = ctx.org && (await ctx.org.over(day, day));
  if (!view) throw new UserInputError(NEEDS_DIRECTORY);
  const members = [...view.directory.identities()].filter((id) => view.directory.inTeams(id, day, [team])).sort();
  if (members.length === 0)
    throw new UserInputError(
      `team "${team.slice(0, 200)}" has no members in the directory today: check its path (levels joined by /, e.g. Engineering/Platform); get_teams lists the teams.`,
    );
  return { day, members };
}

/** One entry per member, each with the same limit, resource and period. */
export function teamEntries(
  members: readonly string[],
  limit: Omit<EntryInput, 'user_email' | 'service_account_name'>,
) {
  return members.map((id): EntryInput =>
    id.startsWith('u:') ? { user_email: id.slice(2), ...limit } : { service_account_name: id.slice(2), ...limit },
  );
}
