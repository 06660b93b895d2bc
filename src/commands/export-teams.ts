import type { Directory } from '../directory/directory.js';

/** Whether an identity is in the teams asked on a day (every identity without --teams); says which were never met. */
export function teamFilter(directory: Directory, teams: readonly string[] | undefined, say: (line: string) => void) {
  const met = new Set<string>();
  return {
    keeps(id: string | null, day: string): boolean {
      if (!teams) return true;
      if (id === null || !directory.inTeams(id, day, teams)) return false;
      if (met.size < teams.length)
        for (const t of teams) if (!met.has(t) && directory.inTeams(id, day, [t])) met.add(t);
      return true;
    },
    done() {
      const never = teams?.filter((t) => !met.has(t)) ?? [];
      if (never.length)
        say(
          `--teams: no one with rows was in ${never.map((t) => `'${t}'`).join(', ')} (or below) on these days; get_teams lists the directory's teams`,
        );
    },
  };
}
