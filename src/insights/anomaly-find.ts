import type { DayRange } from '../domain/dates.js';
import { formatDay } from '../util/utc-date.js';
import type { Series } from './anomaly-data.js';
import type { GroupSeries } from './anomaly-groups.js';
import {
  COST_FLOOR_USD,
  CREDIT_FLOOR,
  SPIKE_TIMES,
  firstAppearances,
  halfText,
  ratioOf,
  spikes,
  unitsText,
  weekdayBreaks,
  type Daily,
  type Flag,
} from './anomaly-rules.js';

export const KINDS = [
  'identity_credits',
  'identity_cost',
  'org_active_users',
  'org_credits',
  'org_cost',
  'new_resource',
  'resource_cost',
] as const;
export type Kind = (typeof KINDS)[number];

/** A group's day against its own weekday pattern (issue 34): the organization's rules on the group's sums. */
export const GROUP_KINDS = ['group_credits', 'group_cost', 'group_active_users'] as const;
export type GroupKind = (typeof GROUP_KINDS)[number];

export interface Anomaly {
  kind: Kind;
  user_email?: string;
  service_account_name?: string;
  scope?: string;
  date: string;
  /** Credits and active users as numbers, billed USD as a decimal string: as the upstream writes them. */
  value: number | string;
  baseline: number | string;
  ratio: number | null;
}

/** An anomaly of a group's series: the group's name beside the usual figures. */
export interface GroupAnomaly extends Omit<Anomaly, 'kind'> {
  kind: GroupKind;
  group: string;
}

const RESOURCE_FLOOR_USD = 10n;
/** A group's active people are judged where its day or baseline has at least this many. */
const GROUP_PEOPLE_FLOOR = 5n;

export const METHOD =
  'Per identity: a day with credits or billed USD ≥5× its baseline, the median of its previous 28 days raised to at least 500 credits or $5. ' +
  'Organization: active users, credits or billed USD ≥1.5× or ≤2/3 of the median of the same weekday in the 4 weeks before. ' +
  'Per model or resource: its first billed day after 28 days without, or billed USD ≥3× its 28-day median (at least $10). ' +
  'Groups (group_by): their credits, billed USD and active people as the organization’s, where the day or baseline reaches 500 credits, $5 or 5 people. ' +
  'Ranked by excess over the baseline in USD (credits at the period’s USD per credit); active users last.';

/** Every anomaly of `days` in the series, ranked: the largest excess over its baseline first. */
export function findAnomalies(series: Series, days: DayRange): Anomaly[] {
  return ranked(series, days) as Anomaly[];
}

/**
 * The series' anomalies and the groups' (each group's credits, billed USD and active people against the median
 * of its same weekday in the 4 weeks before, as the organization's), ranked together.
 */
export function findWithGroups(series: Series, days: DayRange, groups: GroupSeries): Array<Anomaly | GroupAnomaly> {
  return ranked(series, days, groups);
}

function ranked(series: Series, days: DayRange, groups?: GroupSeries): Array<Anomaly | GroupAnomaly> {
  const ranked: Array<{ anomaly: Anomaly | GroupAnomaly; group: number; excess: number }> = [];
  const cost = series.cost;
  const usd = (units: bigint) => (cost ? Number(units) / 10 ** cost.scale : 0);
  // Credits are ranked with money at the period's price of a credit; on the live path, as credits.
  let usdPerCredit = 1;
  if (cost) {
    let [money, credits] = [0n, 0n];
    for (let d = days.start; d <= days.end; d++) {
      money += cost.org.get(d) ?? 0n;
      credits += series.orgCredits.get(d) ?? 0n;
    }
    usdPerCredit = credits > 0n ? usd(money) / Number(credits) : 0;
  }
  const push = (
    kind: Kind | GroupKind,
    flags: Flag[],
    who: (key: string) => Partial<Anomaly | GroupAnomaly>,
    scale: number | null,
  ) => {
    for (const f of flags) {
      const text = (units: bigint) => (scale === null ? Number(units) : unitsText(units, scale));
      const excess2 = 2n * f.value - f.twice;
      const people = kind === 'org_active_users' || kind === 'group_active_users';
      ranked.push({
        anomaly: {
          kind,
          ...who(f.key),
          date: formatDay(f.day),
          value: text(f.value),
          baseline: scale === null ? Number(f.twice) / 2 : halfText(f.twice, scale),
          ratio: ratioOf(f),
        } as Anomaly | GroupAnomaly,
        group: people ? 1 : 0,
        excess:
          scale === null ? (Number(excess2) / 2) * (people ? 1 : usdPerCredit) : Number(excess2) / 2 / 10 ** scale,
      });
    }
  };
  const identity = (key: string) => series.identities.get(key) ?? {};
  const org = () => ({ scope: 'organization' });
  push('identity_credits', spikes(series.credits, days, CREDIT_FLOOR, SPIKE_TIMES), identity, null);
  push('org_credits', weekdayBreaks(series.orgCredits, days, 3n, 2n), org, null);
  push('org_active_users', weekdayBreaks(series.activeUsers, days, 3n, 2n), org, null);
  if (cost) {
    const floor = (usdAmount: bigint) => usdAmount * 10n ** BigInt(cost.scale);
    push('identity_cost', spikes(cost.byIdentity, days, floor(COST_FLOOR_USD), SPIKE_TIMES), identity, cost.scale);
    push('org_cost', weekdayBreaks(cost.org, days, 3n, 2n), org, cost.scale);
    const scope = (key: string) => ({ scope: key });
    push('new_resource', firstAppearances(cost.byResource, days), scope, cost.scale);
    push('resource_cost', spikes(cost.byResource, days, floor(RESOURCE_FLOOR_USD), 3n, true), scope, cost.scale);
  }
  if (groups) {
    // Each group as the organization: its day against the median of the same weekday in the 4 weeks before.
    // A small team's day is noise below an identity's floor: its day or its baseline must reach it.
    const eachGroup = (kind: GroupKind, byGroup: ReadonlyMap<string, Daily>, scale: number | null, floor: bigint) => {
      for (const [name, daily] of byGroup) {
        const flags = weekdayBreaks(daily, days, 3n, 2n).filter(
          (f) => 2n * f.value >= 2n * floor || f.twice >= 2n * floor,
        );
        push(kind, flags, () => ({ group: name }), scale);
      }
    };
    eachGroup('group_credits', groups.credits, null, CREDIT_FLOOR);
    if (groups.cost)
      eachGroup(
        'group_cost',
        groups.cost.byGroup,
        groups.cost.scale,
        COST_FLOOR_USD * 10n ** BigInt(groups.cost.scale),
      );
    if (groups.active) eachGroup('group_active_users', groups.active, null, GROUP_PEOPLE_FLOOR);
  }
  ranked.sort((a, b) => a.group - b.group || b.excess - a.excess || a.anomaly.date.localeCompare(b.anomaly.date));
  return ranked.map((r) => r.anomaly);
}
