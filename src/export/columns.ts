import { METRIC_FIELDS } from '../contract/metrics.js';
import { costMetricsSchema } from '../upstream/endpoints/cost-analytics.js';

export const EXPORT_KINDS = ['user-activity', 'credits', 'cost', 'chargeback'] as const;
export type ExportKind = (typeof EXPORT_KINDS)[number];
/** The kinds written record by record from a stored dataset; chargeback is derived from the stored cost by day. */
export type StoredKind = Exclude<ExportKind, 'chargeback'>;

/** A cell: text as stored (exact decimals), a count, or nothing. */
export type ExportCell = string | number | null;
/** 'text' columns are strings (decimals among them, exact); 'count' columns are whole numbers (INT64 in Parquet). */
export type ColumnType = 'text' | 'count';
export interface Column {
  name: string;
  type: ColumnType;
}

type Row = Record<string, unknown>;

/** How identities read in the export: emails as pseudonyms in pseudonymous mode. */
export interface Masks {
  email(email: string): string;
  text(text: string): string;
}

/** One export: which stored day blocks, its columns, and a stored record as cells in column order. */
export interface ExportShape {
  dataset: string;
  columns: readonly Column[];
  cells(date: string, record: Row, masks: Masks): ExportCell[];
}

/**
 * An export derived from a dataset's stored days: its rows once every day is read (chargeback lines), or as the
 * days go (rows per group and day).
 */
export interface DerivedShape {
  dataset: string;
  columns: readonly Column[];
  derive(days: AsyncIterable<{ date: string; rows: Row[] }>): Promise<ExportCell[][]> | AsyncIterable<ExportCell[]>;
}

/** The chargeback lines (get_chargeback's), one per month and group. */
export const CHARGEBACK_COLUMNS: readonly Column[] = [
  { name: 'month', type: 'text' },
  { name: 'group', type: 'text' },
  { name: 'billed_amount_usd', type: 'text' },
  { name: 'credits_consumed', type: 'text' },
  { name: 'members', type: 'count' },
];

const IDENTITY: Column[] = [
  { name: 'date', type: 'text' },
  { name: 'user_email', type: 'text' },
  { name: 'service_account_name', type: 'text' },
];

const text = (v: unknown): string | null => (v === undefined || v === null ? null : String(v));
/** A count as stored: a JSON number, or a string past 2^53-1, kept exact. */
const count = (v: unknown): ExportCell => (typeof v === 'number' || typeof v === 'string' ? v : null);

function identity(date: string, who: Row | undefined, masks: Masks): ExportCell[] {
  const email = who && typeof who.user_email === 'string' ? masks.email(who.user_email) : null;
  const account = who && typeof who.service_account_name === 'string' ? masks.text(who.service_account_name) : null;
  return [date, email, account];
}

const COST_GROUPS = [
  'product_display_name',
  'byok_status',
  'resource_display_name',
  'resource_type',
  'user_type',
  'bot_name',
  'expert_id',
  'expert_name',
] as const;
/** The cost metrics in the order the API lists them; money and credits are decimals, the rest token counts. */
export const COST_METRICS = Object.keys(costMetricsSchema.shape) as (keyof typeof costMetricsSchema.shape)[];
export const DECIMALS = new Set([
  'billed_amount_usd',
  'estimated_customer_cost_usd',
  'base_cost_usd',
  'surcharge_usd',
  'credits_consumed',
]);

export const SHAPES: Record<StoredKind, ExportShape> = {
  'user-activity': {
    dataset: 'user-activity',
    columns: [...IDENTITY, ...METRIC_FIELDS.map((name) => ({ name, type: 'count' as const }))],
    cells(date, record, masks) {
      const metrics = (record.metrics ?? {}) as Row;
      return [...identity(date, record, masks), ...METRIC_FIELDS.map((f) => count(metrics[f]))];
    },
  },
  credits: {
    dataset: 'credits-by-date-model',
    columns: [...IDENTITY, { name: 'model_name', type: 'text' }, { name: 'credits_consumed', type: 'count' }],
    cells(date, record, masks) {
      return [...identity(date, record, masks), text(record.model_name), count(record.credits_consumed)];
    },
  },
  cost: {
    dataset: 'cost-by-day',
    columns: [
      ...IDENTITY,
      ...COST_GROUPS.map((name) => ({ name, type: 'text' as const })),
      ...COST_METRICS.map((name) => ({ name, type: DECIMALS.has(name) ? ('text' as const) : ('count' as const) })),
    ],
    cells(date, record, masks) {
      const groups = (record.group_by_values ?? {}) as Row;
      const user = groups.user_info as Row | undefined;
      const expert = (groups.expert_info ?? {}) as Row;
      const metrics = (record.cost_metrics ?? {}) as Row;
      return [
        ...identity(date, user, masks),
        text(groups.product_display_name),
        text(groups.byok_status),
        text(groups.resource_display_name),
        text(groups.resource_type),
        text(user?.user_type),
        user && typeof user.bot_name === 'string' ? masks.text(user.bot_name) : null,
        text(expert.expert_id),
        text(expert.name),
        ...COST_METRICS.map((f) => (DECIMALS.has(f) ? text(metrics[f]) : count(metrics[f]))),
      ];
    },
  },
};
