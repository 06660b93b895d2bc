import { foldSmallGroups } from '../../directory/small-groups.js';
import { sumDecimals } from '../../domain/numbers.js';
import { NO_PERSON, type ChargebackLine } from '../../insights/chargeback-lines.js';

/**
 * Each month's lines with groups under `min` people folded (issue 34's privacy rule for pseudonymous answers): into
 * their parent team, level by level, else `(small groups)`; the folded lines are re-summed exactly, so they still add
 * up to the organization's total. Cost of no person names no one and is kept as it is.
 */
export function foldChargeback(
  lines: readonly ChargebackLine[],
  min: number,
  isTeamPath: (group: string) => boolean,
): { lines: ChargebackLine[]; folded: boolean } {
  const months = new Map<string, ChargebackLine[]>();
  for (const l of lines) (months.get(l.month) ?? months.set(l.month, []).get(l.month)!).push(l);
  let folded = false;
  const out: ChargebackLine[] = [];
  for (const [, of] of months) {
    const sizes = new Map(of.filter((l) => l.group !== NO_PERSON).map((l) => [l.group, l.members]));
    const shown = foldSmallGroups(sizes, min, isTeamPath);
    const merged = new Map<string, ChargebackLine[]>();
    for (const l of of) {
      const to = shown.get(l.group) ?? l.group;
      if (to !== l.group) folded = true;
      (merged.get(to) ?? merged.set(to, []).get(to)!).push(l);
    }
    for (const [group, parts] of merged) out.push(parts.length === 1 ? { ...parts[0]!, group } : merge(group, parts));
  }
  return { lines: inOrder(out), folded };
}

/** By month, then group, with `(no person)`, `(unassigned)` and `(small groups)` after the named groups. */
export function inOrder(lines: ChargebackLine[]): ChargebackLine[] {
  const special = (g: string) => (g.startsWith('(') ? 1 : 0);
  return lines.sort(
    (a, b) => a.month.localeCompare(b.month) || special(a.group) - special(b.group) || a.group.localeCompare(b.group),
  );
}

function merge(group: string, parts: readonly ChargebackLine[]): ChargebackLine {
  const keys = new Map<string, { billed: string[]; credits: string[] }>();
  for (const b of parts.flatMap((p) => p.breakdown ?? [])) {
    const k = keys.get(b.key) ?? keys.set(b.key, { billed: [], credits: [] }).get(b.key)!;
    k.billed.push(b.billed_amount_usd);
    k.credits.push(b.credits);
  }
  return {
    group,
    month: parts[0]!.month,
    billed_amount_usd: sumDecimals(parts.map((p) => p.billed_amount_usd)),
    credits: sumDecimals(parts.map((p) => p.credits)),
    // Each person has one group a day: only someone who moved within the month is in two of the folded lines.
    members: parts.reduce((n, p) => n + p.members, 0),
    ...(parts[0]!.breakdown
      ? {
          breakdown: [...keys]
            .map(([key, v]) => ({ key, billed_amount_usd: sumDecimals(v.billed), credits: sumDecimals(v.credits) }))
            .sort((x, y) => x.key.localeCompare(y.key)),
        }
      : {}),
  };
}
