import { int } from '../../format/text.js';

type Values = Record<string, number | string>;
interface Groups {
  by: string;
  rows: Array<{ group: string; members: number; values: Values }>;
  total: { members: number; values: Values };
  overlapping: boolean;
  folded: boolean;
  directory: { source: string; basis: 'dated' | 'today'; problem?: string | undefined };
}

/** The groups block of a grouped answer, as a model reads it: one line per group, the total, and the caveats. */
export function groupsText(g: Groups, figures: (values: Values) => string, shown = 30): string {
  const lines = [`By ${g.by} (${int(g.rows.length)} groups, ${int(g.total.members)} people):`];
  for (const r of g.rows.slice(0, shown)) lines.push(`  ${r.group} (${int(r.members)}): ${figures(r.values)}`);
  if (g.rows.length > shown) lines.push(`  … ${int(g.rows.length - shown)} more groups in the structured result`);
  lines.push(`  Total: ${figures(g.total.values)}.`);
  if (g.overlapping)
    lines.push('  Some people are in two groups and count in each: the groups add up to more than the total.');
  if (g.folded) lines.push('  Groups under the minimum size are folded into their parent team.');
  lines.push(
    g.directory.basis === 'dated'
      ? `  Teams of each day, from ${g.directory.source}.`
      : `  Today's teams (${g.directory.source}) stand for every day: no history store keeps them dated.`,
  );
  if (g.directory.problem)
    lines.push(
      `  The directory's latest version was refused; the last good one is used: ${g.directory.problem.split('\n')[0]}`,
    );
  return lines.join('\n');
}
