import type { DayRange } from '../domain/dates.js';
import { formatDay } from '../util/utc-date.js';
import type { Series } from './anomaly-data.js';
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

const RESOURCE_FLOOR_USD = 10n;

export const METHOD =
  'Per identity: a day with credits or billed USD ≥5× its baseline, the median of its previous 28 days raised to at least 500 credits or $5. ' +
  'Organization: active users, credits or billed USD ≥1.5× or ≤2/3 of the median of the same weekday in the 4 weeks before. ' +
  'Per model or resource: its first billed day after 28 days without, or billed USD ≥3× its 28-day median (at least $10). ' +
  'Ranked by excess over the baseline in USD (credits at the period’s USD per credit); active users last.';

/** Every anomaly of `days` in the series, ranked: the largest excess over its baseline first. */
export function findAnomalies(series: Series, days: DayRange): Anomaly[] {
  const ranked: Array<{ anomaly: Anomaly; group: number; excess: number }> = [];
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
  const push = (kind: Kind, flags: Flag[], who: (key: string) => Partial<Anomaly>, scale: number | null) => {
    for (const f of flags) {
      const text = (units: bigint) => (scale === null ? Number(units) : unitsText(units, scale));
      const excess2 = 2n * f.value - f.twice;
      ranked.push({
        anomaly: {
          kind,
          ...who(f.key),
          date: formatDay(f.day),
          value: text(f.value),
          baseline: scale === null ? Number(f.twice) / 2 : halfText(f.twice, scale),
          ratio: ratioOf(f),
        },
        group: kind === 'org_active_users' ? 1 : 0,
        excess:
          scale === null ? (Number(excess2) / 2) * (kind === 'org_active_users' ? 1 : usdPerCredit) : usd(excess2) / 2,
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
  ranked.sort((a, b) => a.group - b.group || b.excess - a.excess || a.anomaly.date.localeCompare(b.anomaly.date));
  return ranked.map((r) => r.anomaly);
}
