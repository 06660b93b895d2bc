import { sumDecimals } from '../../domain/numbers.js';
import type { ChargebackLine } from '../../insights/chargeback-lines.js';
import { decimalOf } from '../../insights/digest-cost.js';

interface Line {
  group: string;
  month: string;
  /** Units at the month's scales, while every step is a safe integer. */
  b: number;
  c: number;
  /** Exact decimals beside them: amounts read by day, and what the units held before they would overflow. */
  billed: string[];
  credits: string[];
  ids: Set<string>;
}

/**
 * A chargeback's lines summed as the store's digests give them: integer units of one month's scales, written as
 * decimals once per line, with decimals read by day (movers) added exactly. At 50,000 people over 12 months,
 * a decimal string per person and month was most of the answer's time.
 */
export class LineSums {
  private readonly lines = new Map<string, Map<string, Line>>();
  private readonly scales = new Map<string, { billed: number; credits: number }>();

  private line(month: string, group: string): Line {
    let of = this.lines.get(month);
    if (!of) this.lines.set(month, (of = new Map()));
    let at = of.get(group);
    if (!at) of.set(group, (at = { group, month, b: 0, c: 0, billed: [], credits: [], ids: new Set() }));
    return at;
  }

  /** The scales of a month's units (one digest read: every amount of the month at the same scales). */
  scalesOf(month: string, billed: number, credits: number): void {
    const known = this.scales.get(month);
    if (known && (known.billed !== billed || known.credits !== credits))
      throw new Error(`chargeback: ${month} summed at two scales`);
    this.scales.set(month, { billed, credits });
  }

  /** An identity's (or, with `id` null, no person's) units of the month. */
  addUnits(month: string, group: string, id: string | null, b: number | bigint, c: number | bigint): void {
    const at = this.line(month, group);
    const { billed, credits } = this.scales.get(month)!;
    if (id !== null) at.ids.add(id);
    const nb = at.b + Number(b);
    const nc = at.c + Number(c);
    if (typeof b === 'number' && typeof c === 'number' && Number.isSafeInteger(nb) && Number.isSafeInteger(nc)) {
      at.b = nb;
      at.c = nc;
      return;
    }
    at.billed.push(decimalOf(at.b, billed), decimalOf(b, billed));
    at.credits.push(decimalOf(at.c, credits), decimalOf(c, credits));
    at.b = 0;
    at.c = 0;
  }

  /** Amounts as the API writes them (a point of cost by day). */
  addDecimals(month: string, group: string, id: string, billed: string, credits: string): void {
    const at = this.line(month, group);
    at.ids.add(id);
    at.billed.push(billed);
    at.credits.push(credits);
  }

  result(): ChargebackLine[] {
    return [...this.lines.values()]
      .flatMap((of) => [...of.values()])
      .sort((a, b) => a.month.localeCompare(b.month) || a.group.localeCompare(b.group))
      .map((l) => {
        const scales = this.scales.get(l.month) ?? { billed: 0, credits: 0 };
        return {
          group: l.group,
          month: l.month,
          billed_amount_usd: sumDecimals([decimalOf(l.b, scales.billed), ...l.billed]),
          credits: sumDecimals([decimalOf(l.c, scales.credits), ...l.credits]),
          members: l.ids.size,
        };
      });
  }
}
