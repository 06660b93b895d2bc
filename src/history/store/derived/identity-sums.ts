import { identityOf } from '../store-rows.js';
import { digestSpec } from './digests.js';

type Row = Record<string, unknown>;

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
  const spec = digestSpec(dataset);
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
