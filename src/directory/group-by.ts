import { UserInputError } from '../errors.js';
import { UNASSIGNED } from './directory-row.js';

/** How identities are grouped: by team (its full path, or its first `depth` levels), or by an attribute's value. */
export type GroupBy = { kind: 'team'; depth?: number } | { kind: 'attribute'; name: string };

/** `team`, `team:N` or an attribute name, as the tools take it in `group_by`. */
export function parseGroupBy(text: string, attributes: readonly string[]): GroupBy {
  const t = text.trim();
  if (t === 'team') return { kind: 'team' };
  const m = /^team:(\d+)$/.exec(t);
  if (m) {
    const depth = Number(m[1]);
    if (depth < 1) throw new UserInputError(`group_by "${t}": levels count from 1 (team:1 is the top level)`);
    return { kind: 'team', depth };
  }
  if (attributes.includes(t)) return { kind: 'attribute', name: t };
  throw new UserInputError(
    `group_by "${t.slice(0, 60)}" is not known: use team, team:N (the first N levels)${attributes.length ? ` or one of the directory's columns: ${attributes.join(', ')}` : ''}`,
  );
}

/** The group one membership falls in: a team path cut to its depth, or the attribute's value (UNASSIGNED when unset). */
export function groupKeyOf(
  m: { path: string; levels: readonly string[]; attributes: Readonly<Record<string, string>> },
  by: GroupBy,
): string {
  if (by.kind === 'attribute') return m.attributes[by.name] || UNASSIGNED;
  if (!m.path) return UNASSIGNED;
  return by.depth === undefined || by.depth >= m.levels.length ? m.path : m.levels.slice(0, by.depth).join('/');
}

/** How a grouping reads in answers: `team`, `team:2`, `cost_center`. */
export const groupByText = (by: GroupBy) =>
  by.kind === 'attribute' ? by.name : by.depth === undefined ? 'team' : `team:${by.depth}`;
