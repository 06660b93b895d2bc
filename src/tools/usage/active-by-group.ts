import { UserInputError } from '../../errors.js';
import { dau } from '../../upstream/endpoints/dau.js';
import { listAll } from '../../upstream/listing/list-all.js';
import { identityKey } from '../../upstream/listing/merge.js';
import type { DayRange } from '../../domain/dates.js';
import { NO_DIGESTS } from '../../upstream/history-port.js';
import { numbersOf } from '../../insights/digest-sums.js';
import { formatDay, parseIsoDay } from '../../util/utc-date.js';
import { orgScope, type OrgScope } from '../shared/org-groups.js';
import { groupFigures } from '../shared/group-figures.js';
import type { ToolContext } from '../types.js';

/** Distinct people per group per day asks one list of people a day: a quarter at most. */
const MAX_DAYS = 92;

/**
 * Active people per group and day (issue 34): each day's list of active identities (the history store's daily
 * lists when it holds them), each person counted once a day in each of their groups on that day. A group's
 * values are its count by date; the total's are the organization's daily counts.
 */
export async function activeByGroup(
  ctx: ToolContext,
  args: { group_by?: string | undefined; teams?: string[] | undefined },
  dates: readonly string[],
) {
  if (!dates.length) return undefined;
  const range = { start: parseIsoDay(dates[0]!)!, end: parseIsoDay(dates.at(-1)!)! };
  const scope = await orgScope(ctx, range, args);
  if (!scope) return undefined;
  if (dates.length > MAX_DAYS)
    throw new UserInputError(`Active people by team cover ${MAX_DAYS} days at most: ask for a shorter range.`);
  const by = scope.by ?? { kind: 'team' as const, depth: 1 };
  const parts = (await storedParts(ctx, scope, dates)) ?? (await listedParts(ctx, dates));
  return groupFigures(
    ctx,
    { ...scope, by },
    parts,
    (r) => r.id,
    (r) => r.days,
  );
}

type Part = { part: DayRange; rows: Array<{ id: string; days: readonly string[] }> };

/** Each day's list of active identities, a part a day (its membership that day's). */
async function listedParts(ctx: ToolContext, dates: readonly string[]): Promise<Part[]> {
  const parts: Part[] = [];
  for (const date of dates) {
    const day = parseIsoDay(date)!;
    const rows = (await listAll(ctx, dau, { days: { start: day, end: day } })).data.map((r) => ({
      id: identityKey(r),
      days: [date],
    }));
    parts.push({ part: { start: day, end: day }, rows });
  }
  return parts;
}

/**
 * The same from the store's daily digests of the lists: one row per identity with its active days, over the whole
 * range for whoever's teams are the same every day, per part of constant membership for the others. Null when
 * the store lacks a day.
 */
async function storedParts(ctx: ToolContext, scope: OrgScope, dates: readonly string[]): Promise<Part[] | null> {
  if (ctx.digests === NO_DIGESTS) return null;
  const parts = scope.parts;
  const digests = await ctx.digests.digests('dau', { start: parts[0]!.start, end: parts.at(-1)!.end }, true);
  if (!digests) return null;
  const asked = new Set(dates);
  const numbers = numbersOf(digests);
  const names = await ctx.digests.names(numbers);
  const keys = new Map<number, { key: string; apart: boolean }>();
  for (const [n, name] of names) {
    const key = name.startsWith('u:') ? `u:${name.slice(2).toLowerCase()}` : name;
    keys.set(n, { key, apart: !scope.view.directory.sameEveryDay(key) });
  }
  const rows = parts.map(() => new Map<number, string[]>());
  let p = 0;
  for (const d of digests) {
    const date = formatDay(d.days.start);
    if (!asked.has(date)) continue;
    while (parts[p]!.end < d.days.start) p++;
    for (const n of d.ids) {
      const into = keys.get(n)?.apart ? rows[p]! : rows[0]!;
      const days = into.get(n);
      if (days) days.push(date);
      else into.set(n, [date]);
    }
  }
  if (numbers.some((n) => !keys.has(n))) return null;
  return parts.map((part, i) => ({ part, rows: [...rows[i]!].map(([n, days]) => ({ id: keys.get(n)!.key, days })) }));
}
