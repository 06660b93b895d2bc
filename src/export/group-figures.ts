import { METRIC_FIELDS } from '../contract/metrics.js';
import { sumCounts, sumDecimals, tidyDecimal, type BigCount } from '../domain/numbers.js';
import { COST_METRICS, DECIMALS, type Column, type ExportCell, type StoredKind } from './columns.js';

type Row = Record<string, unknown>;

/** One figure a group sums: its column, whether it is a decimal (else a count), and where a stored record has it. */
export interface Figure {
  name: string;
  decimal: boolean;
  of(record: Row): unknown;
}

const metric = (record: Row, field: string) => ((record.metrics ?? {}) as Row)[field];
const cost = (record: Row, field: string) => ((record.cost_metrics ?? {}) as Row)[field];

/** What a group's row sums, per dataset: the figures of the per-person export, less what names the person. */
export const GROUP_FIGURES: Record<StoredKind, readonly Figure[]> = {
  'user-activity': [
    { name: 'active_days', decimal: false, of: (r) => r.active_days },
    ...METRIC_FIELDS.map((f) => ({ name: f, decimal: false, of: (r: Row) => metric(r, f) })),
  ],
  credits: [{ name: 'credits_consumed', decimal: false, of: (r) => r.credits_consumed }],
  cost: COST_METRICS.map((f) => ({ name: f, decimal: DECIMALS.has(f), of: (r: Row) => cost(r, f) })),
};

/** The columns of a grouped export: the day (or the range), the group, its members, then its figures. */
export function groupColumns(kind: StoredKind, granularity: 'day' | 'total'): Column[] {
  const when: Column[] =
    granularity === 'day'
      ? [{ name: 'date', type: 'text' }]
      : [
          { name: 'start_date', type: 'text' },
          { name: 'end_date', type: 'text' },
        ];
  return [
    ...when,
    { name: 'group', type: 'text' },
    { name: 'members', type: 'count' },
    ...GROUP_FIGURES[kind].map((f) => ({ name: f.name, type: f.decimal ? ('text' as const) : ('count' as const) })),
  ];
}

/** Terms summed a batch at a time: exact (BigInt past 2^53), and a long range never holds every term at once. */
const BATCH = 4096;

class Sum {
  private terms: Array<string | BigCount> = [];
  private any = false;
  constructor(private readonly decimal: boolean) {}
  add(value: unknown): void {
    if (typeof value !== 'number' && typeof value !== 'string') return;
    this.any = true;
    this.terms.push(value);
    if (this.terms.length >= BATCH) this.terms = [this.total()];
  }
  merge(other: Sum): void {
    if (other.any) this.add(other.total());
  }
  total(): string | BigCount {
    return this.decimal ? sumDecimals(this.terms.map(String)) : sumCounts(this.terms);
  }
  /** The sum as the upstream writes amounts (at least two decimals); none when no row had the figure. */
  cell(): ExportCell {
    if (!this.any) return null;
    const t = this.total();
    return this.decimal ? tidyDecimal(String(t)) : t;
  }
}

/** One group's identities and exact sums. */
export class GroupSums {
  /** The identities counted; figures of no person add to the sums only. */
  readonly ids = new Set<string>();
  private readonly sums: Sum[];
  constructor(private readonly figures: readonly Figure[]) {
    this.sums = figures.map((f) => new Sum(f.decimal));
  }
  add(id: string | null, record: Row): void {
    if (id !== null) this.ids.add(id);
    this.figures.forEach((f, i) => this.sums[i]!.add(f.of(record)));
  }
  merge(other: GroupSums): void {
    for (const id of other.ids) this.ids.add(id);
    this.sums.forEach((s, i) => s.merge(other.sums[i]!));
  }
  cells(): ExportCell[] {
    return [this.ids.size, ...this.sums.map((s) => s.cell())];
  }
}
