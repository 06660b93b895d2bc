import type { Directory } from './directory.js';

export interface TeamSummary {
  team: string;
  level: number;
  /** Identities in the team or below it. */
  size: number;
  /** Identities in exactly this team. */
  direct: number;
}

/** Every team at every level on a day, with its size: what `get_teams` lists. Sorted by path. */
export function teamSummary(directory: Directory, day: string): { teams: TeamSummary[]; inNoTeam: number } {
  const below = new Map<string, Set<string>>();
  const direct = new Map<string, number>();
  let inNoTeam = 0;
  for (const identity of directory.identities()) {
    const members = directory.membersOn(identity, day).filter((m) => m.path);
    if (!members.length) inNoTeam++;
    for (const m of members) {
      direct.set(m.path, (direct.get(m.path) ?? 0) + 1);
      for (let level = 1; level <= m.levels.length; level++) {
        const path = m.levels.slice(0, level).join('/');
        let set = below.get(path);
        if (!set) below.set(path, (set = new Set()));
        set.add(identity);
      }
    }
  }
  const teams = [...below]
    .map(([team, ids]) => ({ team, level: team.split('/').length, size: ids.size, direct: direct.get(team) ?? 0 }))
    .sort((a, b) => a.team.localeCompare(b.team));
  return { teams, inNoTeam };
}
