/**
 * What the usage view draws, read from a tool's own structuredContent: a trend for daily series, a ranking
 * for per-identity rows, a split for amounts by name. Values keep the text the answer gave (money and
 * credits are decimal strings), so what is shown is exactly what the tool said; numbers only place marks.
 */
export interface Mark {
  label: string;
  /** For geometry only. */
  value: number;
  /** Exactly as in structuredContent. */
  shown: string;
}

export interface Chart {
  kind: 'trend' | 'ranking' | 'split';
  title: string;
  marks: Mark[];
}

export interface ViewModel {
  title: string;
  subtitle: string;
  charts: Chart[];
  /** The values behind every chart, for screen readers and for reading exact figures. */
  table: { columns: string[]; rows: string[][] };
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const isAmount = (v: unknown): v is number | string =>
  (typeof v === 'number' && Number.isFinite(v)) || (typeof v === 'string' && /^-?\d+(\.\d+)?$/.test(v));
const words = (key: string) => key.replace(/_/g, ' ').replace(/^\w/, (c) => c.toUpperCase());
const RANKED = 10;

/** The first numeric field of a row, other than what names it. */
function measureOf(row: Json, skip: string[]): string | undefined {
  return Object.keys(row).find((k) => !skip.includes(k) && isAmount(row[k]));
}

/** A cost row carries its amount in a `cost` object: billed first, as the admins read it. */
function flatten(row: Json): Json {
  if (!isObject(row.cost)) return row;
  const { cost, ...rest } = row;
  return { ...rest, ...cost };
}

function trendOf(rows: Json[], preferred?: string): Chart | undefined {
  const at = (['date', 'week_start', 'start_date'] as const).find((k) => rows[0]![k] !== undefined)!;
  // One point per day, or no trend: a sum of several rows would be a figure the answer never stated.
  if (new Set(rows.map((r) => r[at])).size !== rows.length) return undefined;
  const measure = preferredOr(rows, preferred, ['date', 'week_start', 'start_date', 'end_date']);
  if (!measure) return undefined;
  return {
    kind: 'trend',
    title: `${words(measure)} by ${at === 'week_start' ? 'week' : 'day'}`,
    marks: rows.map((r) => ({ label: String(r[at]), value: Number(r[measure]), shown: String(r[measure]) })),
  };
}

/** The tool's own sort key when every row has it, else the first amount. */
function preferredOr(rows: Json[], preferred: string | undefined, skip: string[]): string | undefined {
  return preferred && rows.every((r) => isAmount(r[preferred])) ? preferred : measureOf(rows[0]!, skip);
}

function rankingOf(rows: Json[], preferred?: string): Chart | undefined {
  const measure = preferredOr(rows, preferred, ['user', 'kind']);
  if (!measure) return undefined;
  const ranked = [...rows].sort((a, b) => Number(b[measure]) - Number(a[measure])).slice(0, RANKED);
  return {
    kind: 'ranking',
    title: `Top ${ranked.length} by ${words(measure).toLowerCase()}`,
    marks: ranked.map((r) => ({
      // A row per person and model (or day) names both, so that a person listed twice is told apart.
      label: [r.user, r.model, r.date].filter((part) => typeof part === 'string').join(' · '),
      value: Number(r[measure]),
      shown: String(r[measure]),
    })),
  };
}

/** Rows of groups (a resource, a product…): a split of the tool's measure between them. */
function groupSplitOf(rows: Json[], preferred?: string): Chart | undefined {
  const skip = ['start_date', 'end_date', 'date', 'kind'];
  const names = Object.keys(rows[0]!).filter(
    (k) => !skip.includes(k) && typeof rows[0]![k] === 'string' && !isAmount(rows[0]![k]),
  );
  const measure = preferredOr(rows, preferred, [...skip, ...names]);
  if (!measure || names.length === 0 || rows.length < 2) return undefined;
  return {
    kind: 'split',
    title: `${words(measure)} by ${names.map((n) => words(n).toLowerCase()).join(', ')}`,
    marks: rows.map((r) => ({
      label: names.map((n) => String(r[n] ?? '')).join(' · '),
      value: Number(r[measure]),
      shown: String(r[measure]),
    })),
  };
}

function splitOf(key: string, amounts: Json): Chart | undefined {
  // Only a map of one measure by name (by_model…): totals of different measures are not parts of a whole.
  if (!/(^|_)by_/.test(key)) return undefined;
  const entries = Object.entries(amounts).filter(([, v]) => isAmount(v));
  if (entries.length < 2 || entries.length !== Object.keys(amounts).length) return undefined;
  const marks = entries.map(([label, v]) => ({ label, value: Number(v), shown: String(v) }));
  // People per editor or language overlap (one person uses several), so they are bars, never parts of a whole.
  if (/editor|language/.test(key))
    return { kind: 'ranking', title: `${words(key)} (one person can use several)`, marks };
  return { kind: 'split', title: words(key), marks };
}

/** Walks the answer for the shapes it can draw: arrays of dated rows, arrays of per-identity rows, maps of amounts. */
function chartsIn(value: Json, path: string[], out: Chart[], sortBy?: string): void {
  for (const [key, child] of Object.entries(value)) {
    if (['freshness', 'pending', 'counts'].includes(key)) continue;
    if (Array.isArray(child) && child.length > 0 && child.every(isObject)) {
      const rows = child.map(flatten).map((r) => (isObject(r.values) ? { ...r, ...r.values } : r));
      // Daily rows: a `date`, or a cost row whose period is one day.
      const dated =
        rows[0]!.date !== undefined ||
        rows[0]!.week_start !== undefined ||
        (rows[0]!.start_date !== undefined && rows[0]!.start_date === rows[0]!.end_date);
      const chart = dated
        ? trendOf(rows, sortBy)
        : rows[0]!.user !== undefined
          ? rankingOf(rows, sortBy)
          : groupSplitOf(rows, sortBy);
      if (chart) out.push(chart);
    } else if (isObject(child)) {
      const split = splitOf(key, child);
      if (split) out.push(split);
      else if (path.length < 3) chartsIn(child, [...path, key], out, sortBy);
    }
  }
}

export function viewModelOf(tool: string, answer: unknown): ViewModel {
  const body = isObject(answer) ? answer : {};
  const charts: Chart[] = [];
  chartsIn(body, [], charts, typeof body.sort_by === 'string' ? body.sort_by : undefined);
  const period = body.start_date && body.end_date ? `${String(body.start_date)} to ${String(body.end_date)}` : '';
  const through =
    isObject(body.freshness) && body.freshness.data_through
      ? `data through ${String(body.freshness.data_through)}`
      : '';
  return {
    title: words(tool.replace(/^get_/, '')),
    subtitle: [period, through].filter(Boolean).join(' · '),
    charts,
    table: {
      columns: ['Chart', 'Label', 'Value'],
      rows: charts.flatMap((c) => c.marks.map((m) => [c.title, m.label, m.shown])),
    },
  };
}
