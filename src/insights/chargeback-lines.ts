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

const breakdownKey = (p: CostPoint, by: Breakdown) =>
  (by === 'model' ? p.group_by_values.resource_display_name : p.group_by_values.product_display_name) ?? '(none)';

interface Acc {
  billed: string[];
  credits: string[];
  ids: Set<string>;
  parts: Map<string, { billed: string[]; credits: string[] }>;
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
  const accs = new Map<string, Acc & { group: string; month: string }>();
  for (const p of points) {
    const id = identityOfPoint(p);
    const group = id === null ? NO_PERSON : groupOf(id, p.start_date);
    const month = p.start_date.slice(0, 7);
    const key = `${month}\u0000${group}`;
    let acc = accs.get(key);
    if (!acc) accs.set(key, (acc = { group, month, billed: [], credits: [], ids: new Set(), parts: new Map() }));
    acc.billed.push(p.cost_metrics.billed_amount_usd);
    acc.credits.push(p.cost_metrics.credits_consumed);
    if (id !== null) acc.ids.add(id);
    if (breakdown) {
      const k = breakdownKey(p, breakdown);
      let part = acc.parts.get(k);
      if (!part) acc.parts.set(k, (part = { billed: [], credits: [] }));
      part.billed.push(p.cost_metrics.billed_amount_usd);
      part.credits.push(p.cost_metrics.credits_consumed);
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
      ...(breakdown
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
