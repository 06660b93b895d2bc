import type { AlertCandidate } from '../domain/alerts.js';
import { earliestDay } from '../domain/dates.js';
import type { StoreReader } from '../insights/digest-sums.js';
import { goneLive } from '../insights/inactive-parts.js';
import { goneStored, type Gone } from '../insights/inactive-stored.js';
import { identityKey } from '../upstream/listing/merge.js';
import { formatDay, weekday } from '../util/utc-date.js';

const MONDAY = 1;
/** Days without activity that make a seat inactive, as find_inactive_people counts them by default. */
export const INACTIVE_DAYS = 30;
const LOOKBACK_DAYS = 90;
/** People listed in one digest at most (the count says how many in all): an alert stays a message. */
const LISTED = 100;

/** Who was active in the lookback before the last `days` complete days through `end`, and not in them. */
async function goneFor(ctx: StoreReader, end: number, days: number): Promise<Gone[]> {
  const start = Math.max(end - LOOKBACK_DAYS + 1, earliestDay(ctx.client.days().today));
  const periods = {
    lookback: { start, end },
    before: { start, end: end - days },
    recent: { start: end - days + 1, end },
  };
  const found = (await goneStored(ctx, periods, undefined)) ?? (await goneLive(ctx, periods, undefined));
  return found.gone;
}

/**
 * `seats.inactive`, weekly: who became inactive for 30 days in the past week, inactive for 30 days now but not for
 * 37 (active in the week before the 30 days), service accounts apart. Keyed by the week's Monday (UTC): the first
 * sync of the week sends it (on Monday, unless no sync ran that day), and no other sync of that week.
 */
export async function inactiveCandidate(ctx: StoreReader): Promise<AlertCandidate | undefined> {
  const today = ctx.client.days().today;
  const monday = today - ((weekday(today) - MONDAY + 7) % 7);
  // As of the week's Monday, whichever day of the week sends it: past days never change, so it is the same digest.
  const end = Math.min(ctx.client.days().published, monday - 1);
  const [now, weekAgo] = await Promise.all([goneFor(ctx, end, INACTIVE_DAYS), goneFor(ctx, end, INACTIVE_DAYS + 7)]);
  const earlier = new Set(weekAgo.map((g) => identityKey(g.row)));
  const newly = now
    .filter((g) => !earlier.has(identityKey(g.row)))
    .sort((a, b) => identityKey(a.row).localeCompare(identityKey(b.row)));
  if (newly.length === 0) return undefined;
  const seat = ({ row: _row, ...g }: Gone) => g;
  const people = newly.flatMap((g) => (g.row.user_email ? [{ user_email: g.row.user_email, ...seat(g) }] : []));
  const accounts = newly.flatMap((g) =>
    g.row.service_account_name ? [{ service_account_name: g.row.service_account_name, ...seat(g) }] : [],
  );
  return {
    type: 'seats.inactive',
    dedupKey: `seats.inactive:organization:${formatDay(monday)}`,
    data: {
      week_of: formatDay(monday),
      inactive_days: INACTIVE_DAYS,
      inactive_since: formatDay(end - INACTIVE_DAYS + 1),
      through: formatDay(end),
      count: newly.length,
      people: people.slice(0, LISTED),
      service_accounts: accounts.slice(0, LISTED),
    },
    scope: { identities: newly.map((g) => identityKey(g.row)) },
  };
}
