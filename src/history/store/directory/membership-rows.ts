import type { Kysely } from 'kysely';
import type { DirectoryRow } from '../../../directory/directory-row.js';
import { formatDay, parseIsoDay } from '../../../util/utc-date.js';
import type { HistoryTables } from '../store-tables.js';

type Db = Kysely<HistoryTables>;
type Stored = HistoryTables['directory_memberships'];
export type StoredMembership = Omit<Stored, 'id'> & { id: number };

/** What makes two memberships the same: the team, whether primary, and the attributes (keys sorted). */
export function signatureOf(r: { team: string; is_primary: number; attributes: string }): string {
  return `${r.team}\u0000${r.is_primary}\u0000${r.attributes}`;
}

export function attributesText(attributes: Record<string, string>): string {
  return JSON.stringify(Object.fromEntries(Object.entries(attributes).sort(([a], [b]) => (a < b ? -1 : 1))));
}

/** A source's row as the table holds it. */
export function storedOf(row: DirectoryRow, recordedAt: string, dated: boolean) {
  return {
    identity: row.identity,
    team: row.team.join('/'),
    is_primary: row.primary ? 1 : 0,
    attributes: attributesText(row.attributes),
    from_day: row.validFrom ? parseIsoDay(row.validFrom)! : null,
    to_day: row.validTo ? parseIsoDay(row.validTo)! : null,
    dated: dated ? 1 : 0,
    recorded_at: recordedAt,
  };
}

/** PostgreSQL may return integers as text. */
const day = (v: unknown) => (v === null || v === undefined ? undefined : formatDay(Number(v)));

/** The table's row back as a directory row, its days as the dates it holds between. */
export function rowOf(
  s: Pick<Stored, 'identity' | 'team' | 'is_primary' | 'attributes' | 'from_day' | 'to_day'>,
): DirectoryRow {
  const validFrom = day(s.from_day);
  const validTo = day(s.to_day);
  return {
    identity: s.identity,
    team: s.team ? s.team.split('/') : [],
    ...(Number(s.is_primary) ? { primary: true } : {}),
    attributes: JSON.parse(s.attributes) as Record<string, string>,
    ...(validFrom ? { validFrom } : {}),
    ...(validTo ? { validTo } : {}),
  };
}

/**
 * The memberships that hold on any day of [start, end] (day numbers), with the days they hold between, so that a
 * directory built from them applies each day's teams. Oldest first, so an identity's first row stays first.
 */
export async function membershipRows(db: Db, start: number, end: number): Promise<DirectoryRow[]> {
  const rows = await db
    .selectFrom('directory_memberships')
    .select(['identity', 'team', 'is_primary', 'attributes', 'from_day', 'to_day'])
    .where((eb) => eb.or([eb('from_day', 'is', null), eb('from_day', '<=', end)]))
    .where((eb) => eb.or([eb('to_day', 'is', null), eb('to_day', '>=', start)]))
    .orderBy('id')
    .execute();
  return rows.map(rowOf);
}

/** The first day the store's directory holds for (null: since always), or undefined when none was recorded. */
export async function directorySince(db: Db): Promise<{ first: string | null; recorded: string } | undefined> {
  const row = await db
    .selectFrom('directory_memberships')
    .select((eb) => [
      eb.fn.min('from_day').as('first'),
      eb.fn.min('recorded_at').as('recorded'),
      eb.fn.countAll().as('n'),
    ])
    .executeTakeFirst();
  if (!row || Number(row.n) === 0) return undefined;
  const nulls = await db
    .selectFrom('directory_memberships')
    .select('id')
    .where('from_day', 'is', null)
    .limit(1)
    .execute();
  return { first: nulls.length ? null : (day(row.first) ?? null), recorded: String(row.recorded) };
}
