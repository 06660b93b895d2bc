import { z } from 'zod';
import { teamSummary } from '../../directory/team-summary.js';
import { UserInputError } from '../../errors.js';
import { int, table } from '../../format/text.js';
import { formatDay } from '../../util/utc-date.js';
import { READ_ONLY, defineTool } from '../define-tool.js';
import { directoryOut } from '../shared/org-groups.js';

export const getTeams = defineTool({
  name: 'get_teams',
  toolset: 'usage',
  title: 'Teams and cost centers',
  description:
    "The organization's teams from its directory (HR file or SCIM): each team's level, size and direct members, the directory's columns, and where it came from. " +
    'Use the names in group_by and teams; in real time (a changed file is read within seconds).',
  input: z.strictObject({
    team: z.string().min(1).max(200).optional().describe('only this team and below'),
    max_level: z.number().int().min(1).max(10).default(2),
  }),
  output: z.object({
    teams: z.array(
      z.object({ team: z.string(), level: z.number().int(), size: z.number().int(), direct: z.number().int() }),
    ),
    teams_total: z.number().int(),
    identities: z.number().int(),
    in_no_team: z.number().int(),
    columns: z.array(z.string()),
    directory: directoryOut.extend({ loaded_at: z.string() }),
  }),
  annotations: { ...READ_ONLY, openWorldHint: false },
  async run(args, ctx) {
    const today = formatDay(ctx.client.today());
    const view = ctx.org && (await ctx.org.over(today, today));
    if (!view)
      throw new UserInputError(
        'No directory is configured: start the server with --directory FILE (a CSV of user_email, team, cost_center…) or SCIM provisioning.',
        'Tell the user how to configure the directory (see the README, Teams and cost centers).',
      );
    const { teams, inNoTeam } = teamSummary(view.directory, today);
    const prefix = args.team?.toLowerCase().replace(/\/+$/, '');
    const within = prefix
      ? teams.filter((t) => t.team.toLowerCase() === prefix || t.team.toLowerCase().startsWith(`${prefix}/`))
      : teams;
    if (prefix && !within.length)
      throw new UserInputError(`No team '${args.team}' in the directory: call get_teams without team for the names`);
    const top = prefix ? within[0]!.level : 0;
    return {
      teams: within.filter((t) => t.level - top < args.max_level + (prefix ? 1 : 0) && t.level <= top + args.max_level),
      teams_total: within.length,
      identities: view.directory.size,
      in_no_team: inNoTeam,
      columns: [...view.directory.attributeNames],
      directory: {
        source: `${view.source.kind}: ${view.source.name}`,
        basis: view.basis,
        loaded_at: view.source.loadedAt,
        ...(view.problem ? { problem: view.problem } : {}),
      },
    };
  },
  text(out) {
    const lines = [
      `Directory (${out.directory.source}, read ${out.directory.loaded_at}): ${int(out.identities)} people and service accounts, ${int(out.teams_total)} teams; ${int(out.in_no_team)} in no team. Columns: ${out.columns.join(', ') || 'none'}.`,
      table(
        ['team', 'level', 'size', 'direct'],
        out.teams.map((t) => [t.team, t.level, t.size, t.direct]),
      ),
    ];
    if (out.teams.length < out.teams_total)
      lines.push(`Showing ${out.teams.length} of ${out.teams_total}: ask with team or a higher max_level for more.`);
    if (out.directory.problem)
      lines.push(
        `The directory's latest version was refused; the last good one is used: ${out.directory.problem.split('\n')[0]}`,
      );
    return lines.join('\n');
  },
});
