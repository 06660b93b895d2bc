import { SMALL_GROUPS } from './directory-row.js';

/**
 * Folds groups smaller than `min` people (issue 34's privacy rule for pseudonymous answers): a team is folded into
 * its parent, level by level, until the people gathered there reach `min`; what is still too small at the top
 * goes into SMALL_GROUPS, as does any small group that is not a team path (an attribute's value, `(unassigned)`).
 * Returns, for each group, the group it is shown as: callers re-sum their exact figures by it.
 */
export function foldSmallGroups(
  members: ReadonlyMap<string, number>,
  min: number,
  isTeamPath: (group: string) => boolean,
): Map<string, string> {
  const shown = new Map<string, string>();
  // People per candidate group, as groups fold into it; deepest paths first, so children fold before parents.
  const size = new Map(members);
  const order = [...members.keys()].sort((a, b) => depth(b) - depth(a) || a.localeCompare(b));
  const target = new Map<string, string>(order.map((g) => [g, g]));
  const pending = [...order];
  while (pending.length) {
    const group = pending.shift()!;
    const n = size.get(group) ?? 0;
    if (n >= min || group === SMALL_GROUPS) continue;
    const parent = isTeamPath(group) && group.includes('/') ? group.slice(0, group.lastIndexOf('/')) : SMALL_GROUPS;
    size.set(parent, (size.get(parent) ?? 0) + n);
    size.delete(group);
    for (const [g, t] of target) if (t === group) target.set(g, parent);
    if (parent !== SMALL_GROUPS && !pending.includes(parent)) {
      // A parent made only of folded children is itself a candidate, in its turn by depth.
      const at = pending.findIndex((p) => depth(p) < depth(parent));
      pending.splice(at < 0 ? pending.length : at, 0, parent);
    }
  }
  for (const [g, t] of target) shown.set(g, t);
  return shown;
}

const depth = (group: string) => group.split('/').length;
