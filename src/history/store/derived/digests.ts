import type { Kysely } from 'kysely';
import type { Digest, DigestName } from '../../../upstream/history-port.js';
import type { HistoryTables } from '../store-tables.js';
import { clear, identityOf } from '../store-rows.js';
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

const nameOf = (key: string, row: Row): string => {
  const info = (row.group_by_values as Row | undefined)?.user_info as Row | undefined;
  const r = info ?? row;
  return String(key.startsWith('u:') ? r.user_email : r.service_account_name);
};

/** Exact units of an integer or a decimal string at `scale` decimals. */
function units(value: unknown, scale: number): bigint {
  const text = String(value).trim();
  const [whole = '0', fraction = ''] = text.split('.');
  const negative = whole.startsWith('-');
  const n = BigInt((negative ? whole.slice(1) : whole) + fraction.padEnd(scale, '0'));
  return negative ? -n : n;
}

const decimals = (value: unknown) => {
  const text = String(value);
  const dot = text.indexOf('.');
  return dot < 0 ? 0 : text.length - dot - 1;
};

/** Exact sums of decimals at the finest scale seen so far. */
function scaled() {
  const at = { scale: 0, rest: 0n };
  return {
    at,
    /** The units of a value, every sum taken (through `all`) to its scale first when it is finer. */
    units(value: unknown, decimal: boolean | undefined, all: () => Iterable<{ units: bigint[] }>, i: number): bigint {
      const places = decimal ? decimals(value) : 0;
      if (places > at.scale) {
        const k = 10n ** BigInt(places - at.scale);
        for (const s of all()) s.units[i]! *= k;
        at.rest *= k;
        at.scale = places;
      }
      return units(value, at.scale);
    },
  };
}

/** The sums of one block's digest, fed its rows a part at a time: `units[0]` the value, `units[1]` the spec's `also`. */
export function digestSums(dataset: string) {
  const spec = SPECS[dataset];
  if (!spec) return undefined;
  const sums = new Map<string, { name: string; units: bigint[] }>();
  const columns = spec.also ? [scaled(), scaled()] : [scaled()];
  const all = () => sums.values();
  return {
    add(rows: readonly Row[]): void {
      for (const row of rows) {
        const value = spec.value(row);
        if (value === undefined || value === null) continue;
        const also = spec.also?.(row) ?? 0;
        const u = [columns[0]!.units(value, spec.decimal, all, 0)];
        if (columns[1]) u.push(columns[1].units(also, true, all, 1));
        const key = identityOf(row);
        if (key === null) {
          u.forEach((x, i) => (columns[i]!.at.rest += x));
          continue;
        }
        const seen = sums.get(key);
        if (seen) u.forEach((x, i) => (seen.units[i]! += x));
        else sums.set(key, { name: nameOf(key, row), units: u });
      }
    },
    get size() {
      return sums.size;
    },
    entries: () => sums,
    scale: () => columns[0]!.at.scale,
    rest: () => columns[0]!.at.rest,
    /** The `also` column's scale and rest, when the spec has one. */
    also: () => columns[1]?.at,
  };
}

export type DigestSums = NonNullable<ReturnType<typeof digestSums>>;

const out = (n: bigint): number | string => (Number.isSafeInteger(Number(n)) ? Number(n) : n.toString());

/** A digest's sums of one share of the identities, by number: compact, kept while the other shares are summed. */
export interface DigestShare {
  ids: number[];
  units: bigint[];
  scale: number;
  rest: bigint;
  also?: { units: bigint[]; scale: number; rest: bigint };
}

export function digestShare(sums: DigestSums, ids: ReadonlyMap<string, number>): DigestShare {
  const also = sums.also();
  const share: DigestShare = {
    ids: [],
    units: [],
    scale: sums.scale(),
    rest: sums.rest(),
    ...(also ? { also: { units: [], scale: also.scale, rest: also.rest } } : {}),
  };
  for (const [key, s] of sums.entries()) {
    share.ids.push(ids.get(key)!);
    share.units.push(s.units[0]!);
    share.also?.units.push(s.units[1]!);
  }
  return share;
}

/** One column of the shares' sums at their finest scale: the values by position in `order`, and the rest. */
function column(
  shares: ReadonlyArray<{ units: bigint[]; scale: number; rest: bigint }>,
  order: Array<[number, number]>,
) {
  const scale = Math.max(0, ...shares.map((s) => s.scale));
  const k = shares.map((s) => 10n ** BigInt(scale - s.scale));
  const rest = shares.reduce((n, s, i) => n + s.rest * k[i]!, 0n);
  return { v: order.map(([s, i]) => out(shares[s]!.units[i]! * k[s]!)), scale, rest: out(rest) };
}

/**
 * The digest row's body from the sums of its shares: identities by number, ascending, with their values (and the
 * `also` column's, as `credits`, when every share has it).
 */
export function digestBody(shares: readonly DigestShare[]): string {
  const order: Array<[number, number]> = shares.flatMap((s, si) => s.ids.map((_, i): [number, number] => [si, i]));
  order.sort((a, b) => shares[a[0]]!.ids[a[1]]! - shares[b[0]]!.ids[b[1]]!);
  const main = column(shares, order);
  const also = shares.every((s) => s.also) ? shares.map((s) => s.also!) : undefined;
  return JSON.stringify({
    ids: order.map(([s, i]) => shares[s]!.ids[i]!),
    ...main,
    ...(also && shares.length ? { credits: column(also, order) } : {}),
  });
}

/** Rows per query: within both engines' bound-parameter limits. */
const CHUNK = 2000;

/**
 * The store's numbering of identities, kept in memory as it is read or written. A transaction numbers all the
 * identities it writes first, in one sorted pass, so that writers side by side (PostgreSQL) never wait on each
 * other in a cycle; numbers are kept in memory once it commits (`settle`): a rolled-back one may be given again.
 */
export class PeopleIndex {
  private readonly ids = new Map<string, number>();
  private readonly names = new Map<number, string>();

  /** The numbers of the identities of the digests, numbering the new ones, inside `tx`; `settle` keeps them. */
  async number(db: Db, digests: ReadonlyArray<DigestSums | undefined>) {
    const wanted = new Map<string, { name: string }>();
    for (const d of digests) if (d) for (const [key, s] of d.entries()) wanted.set(key, s);
    const found = new Map<string, number>();
    const missing = [...wanted.keys()].filter((k) => {
      const id = this.ids.get(k);
      if (id !== undefined) found.set(k, id);
      return id === undefined;
    });
    const select = async (keys: string[]) => {
      for (let i = 0; i < keys.length; i += CHUNK) {
        const rows = await db
          .selectFrom('history_people')
          .select(['id', 'identity'])
          .where('identity', 'in', keys.slice(i, i + CHUNK))
          .execute();
        for (const r of rows) found.set(r.identity, Number(r.id));
      }
    };
    await select(missing);
    const fresh = missing.filter((k) => !found.has(k)).sort();
    for (let i = 0; i < fresh.length; i += CHUNK) {
      const values = fresh.slice(i, i + CHUNK).map((identity) => ({ identity, name: wanted.get(identity)!.name }));
      await db
        .insertInto('history_people')
        .values(values)
        .onConflict((oc) => oc.column('identity').doNothing())
        .execute();
    }
    await select(fresh);
    return { ids: found, settle: () => found.forEach((id, key) => this.ids.set(key, id)) };
  }

  /** The largest number given so far (0: none). */
  async lastId(db: Db): Promise<number> {
    const row = await db
      .selectFrom('history_people')
      .select((eb) => eb.fn.max<number>('id').as('last'))
      .executeTakeFirst();
    return Number(row?.last ?? 0);
  }

  /** The names (emails or service account names) and identity keys of numbered people. */
  async namesOf(db: Db, ids: Iterable<number>): Promise<Map<number, string>> {
    const wanted = [...new Set(ids)];
    const missing = wanted.filter((id) => !this.names.has(id));
    for (let i = 0; i < missing.length; i += CHUNK) {
      const rows = await db
        .selectFrom('history_people')
        .select(['id', 'identity', 'name'])
        .where('id', 'in', missing.slice(i, i + CHUNK))
        .execute();
      for (const r of rows) {
        this.names.set(Number(r.id), `${r.identity.slice(0, 2)}${r.name}`);
        this.ids.set(r.identity, Number(r.id));
      }
    }
    const out = new Map<number, string>();
    for (const id of wanted) {
      const name = this.names.get(id);
      if (name !== undefined) out.set(id, name);
    }
    return out;
  }
}

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
