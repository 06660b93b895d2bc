import type { DirectoryRow } from './directory-row.js';

export interface DirectoryDiff {
  added: string[];
  removed: string[];
  /** Identities whose teams (or primary team, or dates) changed. */
  moved: string[];
  /** Identities whose attributes only changed. */
  attributesChanged: string[];
}

const teamsOf = (rows: readonly DirectoryRow[]) =>
  rows
    .map((r) => `${r.team.join('/')}|${r.primary === true}|${r.validFrom ?? ''}|${r.validTo ?? ''}`)
    .sort()
    .join('\n');
const attributesOf = (rows: readonly DirectoryRow[]) =>
  rows
    .map((r) => JSON.stringify(Object.entries(r.attributes).sort()))
    .sort()
    .join('\n');

function byIdentity(rows: readonly DirectoryRow[]): Map<string, DirectoryRow[]> {
  const map = new Map<string, DirectoryRow[]>();
  for (const r of rows) {
    const list = map.get(r.identity);
    if (list) list.push(r);
    else map.set(r.identity, [r]);
  }
  return map;
}

/** What a new directory would change against the one in force, by identity: a dry run of `directory check`. */
export function diffDirectories(before: readonly DirectoryRow[], after: readonly DirectoryRow[]): DirectoryDiff {
  const old = byIdentity(before);
  const now = byIdentity(after);
  const diff: DirectoryDiff = { added: [], removed: [], moved: [], attributesChanged: [] };
  for (const [id, rows] of now) {
    const was = old.get(id);
    if (!was) diff.added.push(id);
    else if (teamsOf(was) !== teamsOf(rows)) diff.moved.push(id);
    else if (attributesOf(was) !== attributesOf(rows)) diff.attributesChanged.push(id);
  }
  for (const id of old.keys()) if (!now.has(id)) diff.removed.push(id);
  for (const list of Object.values(diff)) (list as string[]).sort();
  return diff;
}
