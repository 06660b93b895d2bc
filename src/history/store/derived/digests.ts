import type { Kysely } from 'kysely';
import type { Digest, DigestName } from '../../../upstream/history-port.js';
import type { HistoryTables } from '../store-tables.js';
import { clear } from '../store-rows.js';
import { digestId } from '../block-ids.js';

/**
 * Digests: per stored block, one row of what the insights tools read of it, summed per identity and written in
 * the block's transaction: identities as numbers (the store's `history_people`), values as exact integers. A day
 * of 50,000 people is one small row of numbers instead of 50,000 records to parse and merge.
 */

type Row = Record<string, unknown>;
type Db = Kysely<HistoryTables>;

interface Spec {
  name: DigestName;
  /** The row's value: an integer, or a decimal string for `decimal`. */
  value(row: Row): unknown;
  decimal?: boolean;
  /** A second decimal summed over the same rows (cost's credits beside billed USD), kept as the digest's `credits`. */
  also?(row: Row): unknown;
}

const active: Spec = { name: 'active', value: (r) => r.active_days };
const credits: Spec = { name: 'credits', value: (r) => r.credits_consumed };
const costOf = (r: Row) => r.cost_metrics as Row | undefined;
const billed: Spec = {
  name: 'billed',
  decimal: true,
  value: (r) => costOf(r)?.billed_amount_usd,
  also: (r) => costOf(r)?.credits_consumed,
};

/** The datasets digested, by the name tools ask for; for each name, months before days. */
const SPECS: Record<string, Spec> = {
  'user-activity-months': active,
  'user-activity': active,
  dau: { name: 'dau', value: () => 1 },
  'credits-by-model-months': credits,
  'credits-by-date-model': credits,
  'cost-total-months': billed,
  'cost-by-day': billed,
};

/** The datasets whose blocks have digests. */
export const DIGESTED = Object.keys(SPECS);

/** The datasets whose digests answer a name, months first. */
export const digestSources = (name: DigestName) => Object.keys(SPECS).filter((id) => SPECS[id]!.name === name);

/** How a dataset's rows are digested; undefined when its blocks have no digest. */
export const digestSpec = (dataset: string): Spec | undefined => SPECS[dataset];

/** A block a digest is written for: its dataset's, with the same days, grain and expiry. */
interface BlockOf {
  dataset: string;
  start: number;
  end: number;
  grain: string;
  fetched_at: string;
  expires_at: number | null;
}

/** Writes a block's digest (replacing the one stored) in the block's transaction. */
export async function storeDigest(tx: Db, b: BlockOf, body: string) {
  const at = { dataset: digestId(b.dataset), start_day: b.start, end_day: b.end };
  await clear(tx, { dataset: at.dataset, start: b.start, end: b.end });
  await tx
    .insertInto('history_rows')
    .values({ ...at, seq: 0, identity: null, body })
    .execute();
  await tx
    .insertInto('history_blocks')
    .values({ ...at, grain: b.grain, rows: 1, fetched_at: b.fetched_at, expires_at: b.expires_at })
    .execute();
}

/** The body of a stored digest block. */
export async function readDigest(db: Db, dataset: string, start: number, end: number) {
  const row = await db
    .selectFrom('history_rows')
    .select('body')
    .where('dataset', '=', digestId(dataset))
    .where('start_day', '=', start)
    .where('end_day', '=', end)
    .executeTakeFirst();
  return row ? (JSON.parse(row.body) as Pick<Digest, 'ids' | 'v' | 'scale' | 'rest' | 'credits'>) : undefined;
}
