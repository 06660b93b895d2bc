import {
  groupSplitOf,
  isObject,
  rankingOf,
  splitOf,
  trendOf,
  words,
  type Chart,
  type Json,
  type Reading,
} from './chart-builders.js';
import { adoptionOf, anomaliesOf, type AdoptionChart, type AnomalyChart, type Table } from './history-builders.js';

/**
 * What the usage view draws, read from a tool's own structuredContent: a trend for daily series, a ranking
 * for per-identity rows, a split for amounts by name. Values keep the text the answer gave (money and
 * credits are decimal strings), so what is shown is exactly what the tool said; numbers only place marks.
 */
export interface ViewModel {
  title: string;
  subtitle: string;
  charts: Array<Chart | AdoptionChart | AnomalyChart>;
  /**
   * The values behind every chart, for screen readers and for reading exact figures: one table for the
   * trends, rankings and splits, and one of its own for each chart of history (adoption, anomalies).
   */
  tables: Table[];
  /** Said instead of charts: an error, or an answer still being fetched. */
  notice?: string;
}

/** A cost row carries its amounts in a `cost` object; activity rows carry theirs in `values`. */
function flatten(row: Json): Json {
  const { cost, values, ...rest } = row;
  return { ...rest, ...(isObject(cost) ? cost : {}), ...(isObject(values) ? values : {}) };
}

const SKIPPED = ['freshness', 'pending', 'counts', 'comparison', 'previous'];

/** The answers of history (get_adoption's periods, find_anomalies' list) have charts of their own. */
const HISTORY = { periods: adoptionOf, anomalies: anomaliesOf } as const;

/** Walks the answer for the shapes it can draw: arrays of dated rows, arrays of per-identity rows, maps of amounts. */
function chartsIn(value: Json, depth: number, out: ViewModel['charts'], reading: Reading): void {
  for (const [key, child] of Object.entries(value)) {
    // A comparison mixes measures (one row per metric): not a chart of one quantity.
    if (SKIPPED.includes(key)) continue;
    const history = depth === 0 && Array.isArray(child) && Object.hasOwn(HISTORY, key);
    const own = history ? HISTORY[key as keyof typeof HISTORY](child) : undefined;
    if (own) {
      out.push(own);
      continue;
    }
    if (Array.isArray(child) && child.length > 0 && child.every(isObject)) {
      const rows = child.map(flatten);
      const first = rows[0]!;
      const day =
        first.date ?? first.week_start ?? (first.start_date === first.end_date ? first.start_date : undefined);
      const dated = day !== undefined && new Set(rows.map((r) => r.date ?? r.week_start ?? r.start_date)).size > 1;
      const chart =
        (dated ? trendOf(rows, reading) : undefined) ??
        (first.user !== undefined ? rankingOf(rows, reading) : groupSplitOf(rows, reading));
      if (chart) out.push(chart);
    } else if (isObject(child)) {
      const split = splitOf(key, child);
      if (split) out.push(split);
      else if (depth < 3) chartsIn(child, depth + 1, out, reading);
    }
  }
}

export function viewModelOf(
  tool: string,
  result: { structuredContent?: unknown; isError?: boolean; content?: unknown },
): ViewModel {
  const body = isObject(result.structuredContent) ? result.structuredContent : {};
  const title = words(tool.replace(/^(get|find)_/, ''));
  const text = Array.isArray(result.content)
    ? result.content.map((c) => (isObject(c) && typeof c.text === 'string' ? c.text : '')).join('\n')
    : '';
  const empty = { title, subtitle: '', charts: [], tables: [] };
  if (result.isError) return { ...empty, notice: text || 'The tool answered with an error.' };
  if (body.complete === false && isObject(body.pending))
    return { ...empty, notice: String(body.pending.message ?? 'The answer is still being fetched.') };
  const reading: Reading = {
    sortBy: typeof body.sort_by === 'string' ? body.sort_by : undefined,
    ascending: body.order === 'asc',
    truncated:
      typeof body.returned_rows === 'number' &&
      typeof body.total_rows === 'number' &&
      body.returned_rows < body.total_rows,
    partialDay: body.includes_today === true && typeof body.end_date === 'string' ? body.end_date : undefined,
  };
  const charts: ViewModel['charts'] = [];
  chartsIn(body, 0, charts, reading);
  const plain = charts.filter((c): c is Chart => 'marks' in c);
  const rows = plain.flatMap((c) => c.marks.map((m) => [c.title, m.label, m.shown]));
  const period = body.start_date && body.end_date ? `${String(body.start_date)} to ${String(body.end_date)}` : '';
  const through =
    isObject(body.freshness) && body.freshness.data_through
      ? `data through ${String(body.freshness.data_through)}`
      : '';
  return {
    title,
    subtitle: [period, through].filter(Boolean).join(' · '),
    charts,
    tables: [
      ...(plain.length
        ? [{ caption: 'Every value in the charts above', columns: ['Chart', 'Label', 'Value'], rows }]
        : []),
      ...charts.flatMap((c) => ('table' in c ? [c.table] : [])),
    ],
  };
}
