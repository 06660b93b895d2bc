import type { DayRange } from '../domain/dates.js';
import { ExactCells } from './anomaly-cells.js';
import { unitsText, type Daily } from './anomaly-rules.js';

/** How the directory splits identities (issue 34), as find_anomalies asks it; the tools layer makes it. */
export interface GroupLens {
  /** The window split where membership changes: within a part each identity has one set of groups. */
  parts: readonly DayRange[];
  /** An identity's groups on a day; none: outside the teams asked for (its figures are left out). */
  groupsOn(identity: string, day: number): readonly string[];
  /** Whether `teams` narrows who is considered: the organization's and resources' own series are not theirs. */
  filtered: boolean;
  /** The group each is shown as, from the people of each group in the period (small groups fold). */
  shownAs(people: ReadonlyMap<string, ReadonlySet<string>>): ReadonlyMap<string, string>;
}

export type GroupMetric = 'credits' | 'billed' | 'active';

/** An identity's figures over one part of the period (`id` null: what no person's rows sum to). */
export interface GroupRow {
  id: string | null;
  values: Record<string, number | string>;
}

/** A group's daily series, summed from its members' of each day. */
export interface GroupSeries {
  credits: Map<string, Daily>;
  /** Billed USD at `scale` decimals (from the store, or the cost listings). */
  cost?: { scale: number; byGroup: Map<string, Daily> };
  /** People active per day (the store's daily lists). */
  active?: Map<string, Daily>;
}

export const GROUP_METRICS: readonly GroupMetric[] = ['credits', 'billed', 'active'];

/**
 * Each group's days over a window, and each identity's sums per part of the period, from per-identity daily
 * values (the store's digests, or the listings' series): a group's day is the sum of its members' of that day.
 */
export class GroupDays {
  private readonly groupIndex = new Map<string, number>();
  private readonly cells = new Map<GroupMetric, ExactCells>();
  private readonly width: number;
  /** The part of each day of the window. */
  private readonly partOf: Int32Array;
  private readonly cached: Array<Map<string, number[]>>;
  private readonly slots: Array<Map<string, number>>;
  private readonly slotSums = new Map<GroupMetric, ExactCells>();
  private readonly rest = new Map<GroupMetric, ExactCells>();
  readonly people = new Map<string, Set<string>>();
  readonly seen = new Set<GroupMetric>();

  constructor(
    private readonly window: DayRange,
    private readonly period: DayRange,
    private readonly lens: GroupLens,
  ) {
    this.width = window.end - window.start + 1;
    this.partOf = new Int32Array(this.width).fill(-1);
    lens.parts.forEach((p, i) => {
      for (let d = Math.max(p.start, window.start); d <= Math.min(p.end, window.end); d++)
        this.partOf[d - window.start] = i;
    });
    this.cached = lens.parts.map(() => new Map());
    this.slots = lens.parts.map(() => new Map());
    for (const m of GROUP_METRICS) {
      this.cells.set(m, new ExactCells());
      this.slotSums.set(m, new ExactCells());
      this.rest.set(m, new ExactCells());
    }
  }

  /** One identity's value of a day (`key` null: of no person). */
  add(metric: GroupMetric, key: string | null, day: number, value: number | string, scale: number): void {
    const at = day - this.window.start;
    const part = this.partOf[at] ?? -1;
    if (part < 0) return;
    this.seen.add(metric);
    const inPeriod = day >= this.period.start && day <= this.period.end;
    if (key === null) {
      if (inPeriod && !this.lens.filtered) this.rest.get(metric)!.add(part, value, scale);
      return;
    }
    const groups = this.groupsOf(key, part, day);
    if (!groups.length) return;
    const cells = this.cells.get(metric)!;
    for (const g of groups) cells.add(g * this.width + at, value, scale);
    if (!inPeriod) return;
    const slots = this.slots[part]!;
    let slot = slots.get(key);
    if (slot === undefined) {
      slots.set(key, (slot = this.slotCount++));
      for (const g of groups) this.people.get(this.names[g]!)!.add(key);
    }
    this.slotSums.get(metric)!.add(slot, value, scale);
  }

  private slotCount = 0;
  private readonly names: string[] = [];

  private groupsOf(key: string, part: number, day: number): number[] {
    const cache = this.cached[part]!;
    let groups = cache.get(key);
    if (!groups) {
      groups = this.lens.groupsOn(key, day).map((name) => {
        let i = this.groupIndex.get(name);
        if (i === undefined) {
          this.groupIndex.set(name, (i = this.names.push(name) - 1));
          this.people.set(name, new Set());
        }
        return i;
      });
      cache.set(key, groups);
    }
    return groups;
  }

  /** The groups' series as shown (small groups folded into what they are shown as), and the rows of the period. */
  finish(): { series: GroupSeries; rows: Array<{ part: DayRange; rows: GroupRow[] }> } {
    const shown = this.lens.shownAs(this.people);
    const merged = (metric: GroupMetric) => {
      const cells = this.cells.get(metric)!;
      const out = new Map<string, Map<number, bigint>>();
      this.names.forEach((name, g) => {
        const to = shown.get(name) ?? name;
        const daily = out.get(to) ?? out.set(to, new Map()).get(to)!;
        for (let at = 0; at < this.width; at++) {
          const v = cells.get(g * this.width + at);
          if (v) daily.set(this.window.start + at, (daily.get(this.window.start + at) ?? 0n) + v);
        }
      });
      return out as Map<string, Daily>;
    };
    const series: GroupSeries = { credits: merged('credits') };
    if (this.seen.has('billed')) series.cost = { scale: this.cells.get('billed')!.scale, byGroup: merged('billed') };
    if (this.seen.has('active')) series.active = merged('active');
    return { series, rows: this.rowsOfParts() };
  }

  private rowsOfParts(): Array<{ part: DayRange; rows: GroupRow[] }> {
    const text = (metric: GroupMetric, sums: ExactCells, cell: number): number | string => {
      const v = sums.get(cell);
      if (metric === 'billed') return unitsText(v, sums.scale);
      return sums.scale === 0 && v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : unitsText(v, sums.scale);
    };
    const name: Record<GroupMetric, string> = { credits: 'credits', billed: 'billed_usd', active: 'active_days' };
    const valuesOf = (sums: Map<GroupMetric, ExactCells>, cell: number) =>
      Object.fromEntries([...this.seen].map((m) => [name[m], text(m, sums.get(m)!, cell)]));
    const out: Array<{ part: DayRange; rows: GroupRow[] }> = [];
    this.lens.parts.forEach((p, i) => {
      const part = { start: Math.max(p.start, this.period.start), end: Math.min(p.end, this.period.end) };
      if (part.start > part.end) return;
      const rows: GroupRow[] = [...this.slots[i]!].map(([id, slot]) => ({ id, values: valuesOf(this.slotSums, slot) }));
      const noPerson = (['credits', 'billed'] as const).some((m) => this.rest.get(m)!.get(i) !== 0n);
      if (noPerson) {
        const values = valuesOf(this.rest, i);
        delete values.active_days;
        rows.push({ id: null, values });
      }
      out.push({ part, rows });
    });
    return out;
  }
}
