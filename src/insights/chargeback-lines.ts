import { sumDecimals, subtractDecimals } from '../domain/numbers.js';
import type { CostPoint } from '../upstream/endpoints/cost-analytics.js';

/** The line of cost that the API attributes to no person: deleted or unresolvable accounts, and bots. */
export const NO_PERSON = '(no person)';

export type Breakdown = 'model' | 'product';

export interface ChargebackLine {
  group: string;
  month: string;
  billed_amount_usd: string;
  credits: string;
  /** Identities whose cost the line holds. */
  members: number;
  breakdown?: Array<{ key: string; billed_amount_usd: string; credits: string }>;
}

/** `u:<email lowercased>` or `s:<name>` of a point's user, or null when the API names no person. */
export function identityOfPoint(p: CostPoint): string | null {
  const u = p.group_by_values.user_info;
  if (u?.user_email !== undefined) return `u:${u.user_email.toLowerCase()}`;
  if (u?.service_account_name !== undefined) return `s:${u.service_account_name}`;
  return null;
}

/** A point's model or product, the key of a line's breakdown. */
export const breakdownKey = (p: CostPoint, by: Breakdown) =>
  (by === 'model' ? p.group_by_values.resource_display_name : p.group_by_values.product_display_name) ?? '(none)';

interface Acc {
  billed: string[];
  credits: string[];
  ids: Set<string>;
  parts: Map<string, { billed: string[]; credits: string[] }>;
}

/** One identity's (or no person's) cost on a day or over days of one month, as chargeback lines sum it. */
export interface CostEntry {
  id: string | null;
  /** A day (`YYYY-MM-DD`) of the cost: its month is the line's, its membership the identity's group. */
  day: string;
  billed: string;
  credits: string;
  /** The breakdown's key (a model or a product), when one is asked. */
  key?: string;
}

/**
 * Chargeback lines from cost points of single days (granularity DAY, grouped by user): each point's cost goes to
 * exactly one group, the one `groupOf` gives its identity on its day, or to NO_PERSON. Sums are exact decimals, so
 * the lines of a month add up to that month's cost to the last digit.
 */
export function chargebackLines(
  points: Iterable<CostPoint>,
  groupOf: (identity: string, day: string) => string,
  breakdown?: Breakdown,
): ChargebackLine[] {
  const entries = function* (): Iterable<CostEntry> {
    for (const p of points)
      yield {
        id: identityOfPoint(p),
        day: p.start_date,
        billed: p.cost_metrics.billed_amount_usd,
        credits: p.cost_metrics.credits_consumed,
        ...(breakdown ? { key: breakdownKey(p, breakdown) } : {}),
      };
  };
  return linesOf(entries(), groupOf, breakdown !== undefined);
}

/** Chargeback lines from cost entries (a point's, or an identity's sum over days of a month that share a membership). */
export function linesOf(
  entries: Iterable<CostEntry>,
  groupOf: (identity: string, day: string) => string,
  withBreakdown = false,
): ChargebackLine[] {
  const accs = new Map<string, Acc & { group: string; month: string }>();
  for (const e of entries) {
    const group = e.id === null ? NO_PERSON : groupOf(e.id, e.day);
    const month = e.day.slice(0, 7);
    const key = `${month}\u0000${group}`;
    let acc = accs.get(key);
    if (!acc) accs.set(key, (acc = { group, month, billed: [], credits: [], ids: new Set(), parts: new Map() }));
    acc.billed.push(e.billed);
    acc.credits.push(e.credits);
    if (e.id !== null) acc.ids.add(e.id);
    if (withBreakdown) {
      const k = e.key ?? '(none)';
      let part = acc.parts.get(k);
      if (!part) acc.parts.set(k, (part = { billed: [], credits: [] }));
      part.billed.push(e.billed);
      part.credits.push(e.credits);
    }
  }
  return [...accs.values()]
    .sort((a, b) => a.month.localeCompare(b.month) || a.group.localeCompare(b.group))
    .map((a) => ({
      group: a.group,
      month: a.month,
      billed_amount_usd: sumDecimals(a.billed),
      credits: sumDecimals(a.credits),
      members: a.ids.size,
      ...(withBreakdown
        ? {
            breakdown: [...a.parts]
              .map(([key, v]) => ({ key, billed_amount_usd: sumDecimals(v.billed), credits: sumDecimals(v.credits) }))
              .sort((x, y) => x.key.localeCompare(y.key)),
          }
        : {}),
    }));
}

/** The organization's total beside the lines', and the difference (zero when every cost found its line). */
export function reconcile(lines: readonly ChargebackLine[], organizationTotal: string) {
  const linesTotal = sumDecimals(lines.map((l) => l.billed_amount_usd));
  return { lines_total_usd: linesTotal, difference_usd: subtractDecimals(organizationTotal, linesTotal) };
}
