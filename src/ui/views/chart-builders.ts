export interface Mark {
  label: string;
  /** For geometry only. */
  value: number;
  /** Exactly as in structuredContent. */
  shown: string;
  /** A trend's day number, which places the point. */
  at?: number;
  /** A trend's day that is not complete yet (today): drawn hollow, its segment dashed. */
  partial?: boolean;
}

export interface Chart {
  kind: 'trend' | 'ranking' | 'split';
  title: string;
  marks: Mark[];
  unit?: 'day' | 'week';
  /** What the marks measure, for the value axis. */
  measure?: string;
}

export type Json = Record<string, unknown>;
export const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
export const isAmount = (v: unknown): v is number | string =>
  (typeof v === 'number' && Number.isFinite(v)) || (typeof v === 'string' && /^-?\d+(\.\d+)?$/.test(v));
export const words = (key: string) => key.replace(/_/g, ' ').replace(/^\w/, (c) => c.toUpperCase());
const isDay = (v: unknown): v is string => typeof v === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(v);
const RANKED = 10;
/** Measures an answer is usually ranked by, when it does not name its own sort key. */
const USUAL = ['total_messages', 'credits_consumed', 'billed_amount_usd'];

/** How the answer was asked for: its sort key and order, whether it holds every row, whether today is partial. */
export interface Reading {
  sortBy?: string;
  ascending: boolean;
  truncated: boolean;
  partialDay?: string;
}

function measureOf(rows: Json[], reading: Reading, skip: string[]): string | undefined {
  const has = (k: string) => !skip.includes(k) && rows.every((r) => isAmount(r[k]));
  return (
    [reading.sortBy, ...USUAL].find((k): k is string => k !== undefined && has(k)) ?? Object.keys(rows[0]!).find(has)
  );
}

export const dayNumber = (day: string) => Date.parse(`${day}T00:00:00Z`) / 86_400_000;

/** Points in date order, placed by their day: a gap in the data is a gap on the axis, not a closer point. */
export function trendOf(rows: Json[], reading: Reading): Chart | undefined {
  const at = (['date', 'week_start', 'start_date'] as const).find((k) => isDay(rows[0]![k]))!;
  // A list cut short by its limit, or several rows a day, would draw a trend the data does not have.
  if (reading.truncated || new Set(rows.map((r) => r[at])).size !== rows.length) return undefined;
  const measure = measureOf(rows, reading, ['date', 'week_start', 'start_date', 'end_date']);
  if (!measure) return undefined;
  const marks: Mark[] = rows
    .map((r) => {
      const day = String(r[at]);
      const partial = day === reading.partialDay;
      const label = partial ? `${day} (partial)` : day;
      return { label, value: Number(r[measure]), shown: String(r[measure]), at: dayNumber(day), partial };
    })
    .sort((a, b) => a.at - b.at);
  return {
    kind: 'trend',
    measure: words(measure),
    unit: at === 'week_start' ? 'week' : 'day',
    title: `${words(measure)} by ${at === 'week_start' ? 'week' : 'day'}`,
    marks,
  };
}

/** In the answer's own order and selection: its first ten, most or least as it was asked. */
export function rankingOf(rows: Json[], reading: Reading): Chart | undefined {
  const names = Object.keys(rows[0]!).filter(
    (k) => k !== 'kind' && typeof rows[0]![k] === 'string' && !isAmount(rows[0]![k]),
  );
  const measure = measureOf(rows, reading, ['user', 'kind']);
  if (!measure) return undefined;
  const shown = rows.slice(0, RANKED);
  // The answer's own order says whether it lists the most or the least (it may not name its order).
  const ascending = reading.ascending || Number(rows[0]![measure]) < Number(rows.at(-1)![measure]);
  const head = ascending ? 'Least' : 'Top';
  return {
    kind: 'ranking',
    measure: words(measure),
    title: `${head} ${shown.length} by ${words(measure).toLowerCase()}`,
    marks: shown.map((r) => ({
      // Every name the row carries (a person and a model, a resource…), so that a person listed twice is told apart.
      label: names.map((n) => String(r[n])).join(' · '),
      value: Number(r[measure]),
      shown: String(r[measure]),
    })),
  };
}

/** Rows of groups (a resource, a product…): a split of one measure between them. */
export function groupSplitOf(rows: Json[], reading: Reading): Chart | undefined {
  const skip = ['start_date', 'end_date', 'date', 'kind'];
  const names = Object.keys(rows[0]!).filter(
    (k) => !skip.includes(k) && typeof rows[0]![k] === 'string' && !isAmount(rows[0]![k]),
  );
  const measure = measureOf(rows, reading, [...skip, ...names]);
  // Parts of a whole only when the answer holds every part.
  if (!measure || names.length === 0 || rows.length < 2 || reading.truncated) return undefined;
  return {
    kind: 'split',
    measure: words(measure),
    title: `${words(measure)} by ${names.map((n) => words(n).toLowerCase()).join(', ')}`,
    marks: rows.map((r) => ({
      label: names.map((n) => String(r[n] ?? '')).join(' · '),
      value: Number(r[measure]),
      shown: String(r[measure]),
    })),
  };
}

/** A map of one measure by name (by_model…); people per editor overlap, so they are bars, not parts of a whole. */
export function splitOf(key: string, amounts: Json): Chart | undefined {
  if (!/(^|_)by_/.test(key)) return undefined;
  const entries = Object.entries(amounts).filter(([, v]) => isAmount(v));
  if (entries.length < 2 || entries.length !== Object.keys(amounts).length) return undefined;
  const marks = entries.map(([label, v]) => ({ label, value: Number(v), shown: String(v) }));
  if (/editor|language/.test(key))
    return { kind: 'ranking', title: `${words(key)} (one person can use several)`, marks };
  return { kind: 'split', title: words(key), marks };
}
