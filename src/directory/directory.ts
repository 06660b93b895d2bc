import { UNASSIGNED, type DirectoryRow, type DirectorySource } from './directory-row.js';
import { groupKeyOf, type GroupBy } from './group-by.js';

/** One membership as the model keeps it: the path joined, and its dates (inclusive) when it has them. */
interface Member {
  path: string;
  levels: readonly string[];
  primary: boolean;
  attributes: Readonly<Record<string, string>>;
  from?: string;
  to?: string;
}

/** An identity's memberships; `undated`: none has dates, so every day answers alike. */
interface Entry {
  members: Member[];
  undated: boolean;
}

const holds = (m: Member, day: string) =>
  (m.from === undefined || m.from <= day) && (m.to === undefined || m.to >= day);
const NONE: readonly Member[] = [];

/** Where identities belong, day by day, built from the rows a source gave (a file, SCIM, or the store's dated rows). */
export class Directory {
  private readonly entries = new Map<string, Entry>();
  private readonly cache = new Map<string, Map<string, readonly string[]>>();
  readonly attributeNames: readonly string[];

  constructor(
    rows: readonly DirectoryRow[],
    readonly source: DirectorySource,
  ) {
    const names = new Set<string>();
    for (const r of rows) {
      let e = this.entries.get(r.identity);
      if (!e) this.entries.set(r.identity, (e = { members: [], undated: true }));
      const m: Member = {
        path: r.team.join('/'),
        levels: r.team,
        primary: r.primary === true,
        attributes: r.attributes,
        ...(r.validFrom ? { from: r.validFrom } : {}),
        ...(r.validTo ? { to: r.validTo } : {}),
      };
      if (m.from || m.to) e.undated = false;
      // The primary membership first: it is the one chargeback counts.
      if (m.primary) e.members.unshift(m);
      else e.members.push(m);
      for (const k of Object.keys(r.attributes)) names.add(k);
    }
    this.attributeNames = [...names].sort();
  }

  get size(): number {
    return this.entries.size;
  }

  has(identity: string): boolean {
    return this.entries.has(identity);
  }

  identities(): IterableIterator<string> {
    return this.entries.keys();
  }

  /** Whether an identity's teams are the same every day: its memberships have no dates, or it has none. */
  sameEveryDay(identity: string): boolean {
    return this.entries.get(identity)?.undated ?? true;
  }

  /** The memberships that hold on a day (`YYYY-MM-DD`), the primary one first; none when not in the directory. */
  membersOn(identity: string, day: string): readonly Member[] {
    const e = this.entries.get(identity);
    if (!e) return NONE;
    if (e.undated) return e.members;
    const on = e.members.filter((m) => holds(m, day));
    const primary = on.findIndex((m) => m.primary);
    return primary > 0 ? [on[primary]!, ...on.filter((_, i) => i !== primary)] : on;
  }

  /** Every group an identity is in on a day, by the grouping asked ([UNASSIGNED] when none). */
  groupsOn(identity: string, day: string, by: GroupBy): readonly string[] {
    return this.everyDay(identity, day, by, 'all', (members) => this.groupsOf(members, by));
  }

  /** The one group an identity's figures go to when they must not count twice (chargeback): its primary team's. */
  primaryGroupOn(identity: string, day: string, by: GroupBy): string {
    return this.everyDay(identity, day, by, 'primary', (members) => [this.primaryOf(members, by)])[0]!;
  }

  /**
   * Groups of an identity's memberships on a day; for one whose memberships have no dates, worked out once per
   * grouping and kept (grouped answers and chargebacks ask it for every person, part and month).
   */
  private everyDay(
    identity: string,
    day: string,
    by: GroupBy,
    what: string,
    of: (members: readonly Member[]) => readonly string[],
  ): readonly string[] {
    const e = this.entries.get(identity);
    if (!e?.undated) return of(this.membersOn(identity, day));
    const key = `${what}:${by.kind === 'attribute' ? `a:${by.name}` : `t:${by.depth ?? ''}`}`;
    let cached = this.cache.get(key);
    if (!cached) this.cache.set(key, (cached = new Map()));
    let groups = cached.get(identity);
    if (!groups) cached.set(identity, (groups = of(e.members)));
    return groups;
  }

  private primaryOf(members: readonly Member[], by: GroupBy): string {
    const first = members[0];
    return first ? groupKeyOf(first, by) : UNASSIGNED;
  }

  /** Whether an identity is, on a day, in one of the teams or below them (whole levels, any case). */
  inTeams(identity: string, day: string, teams: readonly string[]): boolean {
    const wanted = teams.map((t) => t.toLowerCase().replace(/\/+$/, ''));
    return this.membersOn(identity, day).some((m) => {
      const path = m.path.toLowerCase();
      return wanted.some((t) => path === t || path.startsWith(`${t}/`));
    });
  }

  /** The days in (start, end] on which some membership begins or ends: a range split there has one directory per part. */
  changeDays(start: string, end: string): string[] {
    const days = new Set<string>();
    for (const e of this.entries.values()) {
      if (e.undated) continue;
      for (const m of e.members) {
        if (m.from && m.from > start && m.from <= end) days.add(m.from);
        const after = m.to && nextDay(m.to);
        if (after && after > start && after <= end) days.add(after);
      }
    }
    return [...days].sort();
  }

  private groupsOf(members: readonly Member[], by: GroupBy): readonly string[] {
    if (!members.length) return [UNASSIGNED];
    const groups = [...new Set(members.map((m) => groupKeyOf(m, by)))];
    return groups;
  }
}

export function nextDay(day: string): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
}
