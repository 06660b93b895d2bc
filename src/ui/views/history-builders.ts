import { dayNumber, isAmount, isObject, words, type Json } from './chart-builders.js';

/** A table that goes with one chart: every value it draws, as the answer gave it. */
export interface Table {
  caption: string;
  columns: string[];
  rows: string[][];
}

/** An amount as the answer gave it (`shown`), and the number that only places its mark. */
export interface Amount {
  value: number;
  shown: string;
}

export const SERIES = ['active', 'new', 'returning', 'retained'] as const;
export type AdoptionSeries = (typeof SERIES)[number];

export interface AdoptionPeriod {
  label: string;
  /** Day number of the period's first day: places it on the time axis. */
  at: number;
  partial: boolean;
  historyBegins: boolean;
  /** null: the answer does not know it (returning and retained before there is a period to compare with). */
  counts: Record<AdoptionSeries, Amount | null>;
}

/** How a count the answer leaves unknown (null) is shown. */
export const UNKNOWN = '—';

export interface AdoptionChart {
  kind: 'adoption';
  title: string;
  periods: AdoptionPeriod[];
  table: Table;
}

export interface AnomalyPoint {
  date: string;
  at: number;
  kind: string;
  who: string;
  value: Amount;
  /** Null when the answer gives none that places a mark (a first appearance has no baseline to compare). */
  baseline: Amount | null;
  baselineShown: string;
  ratio: string;
}

export interface AnomalyChart {
  kind: 'anomalies';
  title: string;
  points: AnomalyPoint[];
  table: Table;
}

const shownOf = (v: unknown) => (v === null || v === undefined ? '' : String(v));
const amountOf = (v: unknown): Amount | null => (isAmount(v) ? { value: Number(v), shown: String(v) } : null);
const isDay = (v: unknown): v is string => typeof v === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(v);

/** get_adoption's periods: active, new, returning and retained people per week or month. */
export function adoptionOf(periods: unknown[]): AdoptionChart | undefined {
  const rows = periods.filter(isObject);
  if (rows.length === 0 || rows.length !== periods.length) return undefined;
  const known = (r: Json) => isAmount(r.active) && SERIES.every((s) => isAmount(r[s]) || r[s] === null);
  if (!rows.every((r) => isDay(r.start_date) && known(r))) return undefined;
  const weekly = rows.every((r) => dayNumber(String(r.end_date)) - dayNumber(String(r.start_date)) <= 6);
  const list: AdoptionPeriod[] = rows
    .map((r) => {
      const span = r.end_date && r.end_date !== r.start_date ? `${String(r.start_date)} to ${String(r.end_date)}` : '';
      return {
        label: span || String(r.start_date),
        at: dayNumber(String(r.start_date)),
        partial: r.partial === true,
        historyBegins: r.history_begins === true,
        counts: Object.fromEntries(SERIES.map((s) => [s, amountOf(r[s])])) as Record<AdoptionSeries, Amount | null>,
      };
    })
    .sort((a, b) => a.at - b.at);
  const note = (p: AdoptionPeriod) =>
    [p.partial ? 'partial' : '', p.historyBegins ? 'history begins (everyone is new)' : ''].filter(Boolean).join('; ');
  return {
    kind: 'adoption',
    title: `People by ${weekly ? 'week' : 'month'}`,
    periods: list,
    table: {
      caption: 'Adoption by period',
      columns: ['Period', 'Note', ...SERIES.map(words)],
      rows: list.map((p) => [p.label, note(p), ...SERIES.map((s) => p.counts[s]?.shown ?? UNKNOWN)]),
    },
  };
}

/** find_anomalies' list: each day an identity or scope broke from its baseline, in the answer's order. */
export function anomaliesOf(anomalies: unknown[]): AnomalyChart | undefined {
  const rows = anomalies.filter(isObject);
  if (rows.length === 0 || rows.length !== anomalies.length) return undefined;
  if (!rows.every((r) => isDay(r.date) && isAmount(r.value) && 'baseline' in r)) return undefined;
  const points: AnomalyPoint[] = rows.map((r: Json) => {
    const baseline = amountOf(r.baseline);
    return {
      date: String(r.date),
      at: dayNumber(String(r.date)),
      kind: shownOf(r.kind),
      who: shownOf(r.user_email ?? r.service_account_name ?? r.group ?? r.scope),
      value: amountOf(r.value)!,
      baseline: baseline && baseline.value > 0 ? baseline : null,
      baselineShown: shownOf(r.baseline),
      ratio: shownOf(r.ratio),
    };
  });
  return {
    kind: 'anomalies',
    title: 'Anomalies: value against its baseline, by day',
    points,
    table: {
      caption: 'Every anomaly, largest excess first',
      columns: ['Date', 'Kind', 'Who or what', 'Value', 'Baseline', 'Ratio'],
      rows: points.map((p) => [p.date, p.kind, p.who, p.value.shown, p.baselineShown, p.ratio]),
    },
  };
}
