/** A webhook body as queued. */
export interface AlertBody {
  type: string;
  timestamp: string;
  data: Record<string, unknown>;
}

/** What a person reads of one alert or a batch: a title, facts, and a table of at most 10 rows. */
export interface AlertSummary {
  title: string;
  facts: Array<[string, string]>;
  table?: { columns: string[]; rows: string[][] };
  /** Rows past the table's 10. */
  more: number;
}

export const TABLE_ROWS = 10;
const TABLE_COLUMNS = 6;

const TITLES: Record<string, string> = {
  'anomaly.detected': 'Unusual usage',
  'budget.threshold': 'Budget threshold crossed',
  'seats.inactive': 'Seats gone inactive',
  'sync.failed': 'The sync failed',
  'data.stale': 'The data is stale',
  'alert.test': 'Test alert',
};

export const titleOf = (type: string) => TITLES[type] ?? type;

const isScalar = (v: unknown): v is string | number | boolean | null =>
  v === null || ['string', 'number', 'boolean'].includes(typeof v);
const cell = (v: unknown) => (v === null || v === undefined ? '' : isScalar(v) ? String(v) : JSON.stringify(v));
const label = (key: string) => key.replaceAll('_', ' ');

/** The table of rows (objects): the columns their scalar fields name, first seen first, at most 6. */
function tableOf(items: Array<Record<string, unknown>>): AlertSummary['table'] {
  const columns: string[] = [];
  for (const item of items.slice(0, TABLE_ROWS))
    for (const [k, v] of Object.entries(item)) if (isScalar(v) && !columns.includes(k)) columns.push(k);
  const shown = columns.slice(0, TABLE_COLUMNS);
  return { columns: shown.map(label), rows: items.slice(0, TABLE_ROWS).map((i) => shown.map((c) => cell(i[c]))) };
}

const rowsIn = (v: unknown): v is Array<Record<string, unknown>> =>
  Array.isArray(v) && v.length > 0 && v.every((x) => typeof x === 'object' && x !== null && !Array.isArray(x));

/**
 * One alert: its data's plain fields as facts (at most 10), and its first list of records (anomalies, people)
 * as the table. Decimals stay the strings they are.
 */
export function summaryOf(body: AlertBody): AlertSummary {
  const entries = Object.entries(body.data);
  const facts = entries
    .filter(([, v]) => isScalar(v) || (Array.isArray(v) && v.every(isScalar) && v.length > 0))
    .slice(0, 10)
    .map(([k, v]): [string, string] => [label(k), Array.isArray(v) ? v.map(cell).join('; ') : cell(v)]);
  const list = entries.find(([, v]) => rowsIn(v))?.[1] as Array<Record<string, unknown>> | undefined;
  return {
    title: titleOf(body.type),
    facts,
    ...(list ? { table: tableOf(list) } : {}),
    more: list ? Math.max(0, list.length - TABLE_ROWS) : 0,
  };
}

/**
 * Who an alert is about, from what it carries (its data went through --pii pseudonymous; its dedup key did not):
 * a person, a service account, a model, or the organization.
 */
function subjectOf(data: Record<string, unknown>): string {
  const first = Array.isArray(data.anomalies) ? (data.anomalies[0] as Record<string, unknown> | undefined) : undefined;
  for (const source of [data, first ?? {}])
    for (const key of ['user_email', 'service_account_name', 'model', 'scope'])
      if (typeof source[key] === 'string') return source[key];
  return 'organization';
}

/** The day, week or month a dedup key (`event:subject:day-or-month`) ends with. */
const whenOf = (dedupKey: string) => dedupKey.split(':').at(-1) ?? '';

/** Several alerts of one sync as one: how many of each event, and one row per alert. */
export function batchSummaryOf(alerts: Array<{ body: AlertBody; dedupKey: string }>): AlertSummary {
  const counts = new Map<string, number>();
  for (const a of alerts) counts.set(a.body.type, (counts.get(a.body.type) ?? 0) + 1);
  return {
    title: `${alerts.length} alerts`,
    facts: [...counts].map(([type, n]): [string, string] => [titleOf(type), String(n)]),
    table: {
      columns: ['event', 'about', 'when'],
      rows: alerts.slice(0, TABLE_ROWS).map((a) => [a.body.type, subjectOf(a.body.data), whenOf(a.dedupKey)]),
    },
    more: Math.max(0, alerts.length - TABLE_ROWS),
  };
}
