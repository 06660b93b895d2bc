import { GROUP_BY_KEYS, type GroupByKey } from '../../contract/enums.js';
import { costItemsOfDay } from './cost-items.js';
import { itemMatcher, type Filters } from './cost-filters.js';
import { radixes } from './cost-groups.js';
import type { SimState } from '../state.js';

/** Maps group keys to row numbers: a flat array when the key space is small enough, a Map otherwise. */
class RowIndex {
  private readonly dense: Int32Array | undefined;
  private readonly sparse = new Map<number, number>();
  readonly keys: number[] = [];

  constructor(keySpace: number) {
    this.dense = keySpace <= 16_000_000 ? new Int32Array(keySpace).fill(-1) : undefined;
  }

  rowOf(key: number): number {
    let row = this.dense ? this.dense[key]! : (this.sparse.get(key) ?? -1);
    if (row < 0) {
      row = this.keys.length;
      this.keys.push(key);
      if (this.dense) this.dense[key] = row;
      else this.sparse.set(key, row);
    }
    return row;
  }
}

/** Sums per group in one flat array (COLUMNS per group), in the order the groups were first seen. */
export interface Aggregate {
  /** Group keys in ascending (output) order, with their rows in `sums`. */
  keys: Float64Array;
  rows: Int32Array;
  sums: Float64Array;
  giant: Map<number, bigint>;
}

/** Billed, estimated, base and surcharge micro-USD; input, output, cache-read and cache-write tokens; centi-credits. */
export const COLUMNS = 9;

class GrowableSums {
  data = new Float64Array(COLUMNS * 1024);
  rows = 0;
  add(): number {
    if ((this.rows + 1) * COLUMNS > this.data.length) {
      const bigger = new Float64Array(this.data.length * 2);
      bigger.set(this.data);
      this.data = bigger;
    }
    return this.rows++;
  }
}

/** The cost items of the days start..end that pass the filters, summed per group (and per day if byDay). */
export function aggregate(
  state: SimState,
  start: number,
  end: number,
  groupBy: Set<GroupByKey>,
  byDay: boolean,
  filters: Filters,
): Aggregate {
  const org = state.org;
  const today = state.today();
  const R = radixes(state, groupBy);
  const index = new RowIndex((byDay ? end - start + 2 : 1) * R.perDay);
  const sums = new GrowableSums();
  const giant = new Map<number, bigint>();
  const matches = Object.keys(filters).length > 0 ? itemMatcher(state, filters) : undefined;
  const [byProduct, byResource, byUser, byByok, byExpert] = GROUP_BY_KEYS.map((k) => groupBy.has(k));

  const ownerRank = (owner: number) =>
    owner < org.identities.length && org.identities[owner]!.leaveDay <= today ? R.deletedOwner : owner;

  for (let d = start; d <= end; d++) {
    costItemsOfDay(org, state.published(d), (item) => {
      if (matches && !matches(item)) return;
      let key = byDay ? d - start + 1 : 0;
      key = key * R.product + (byProduct ? item.product : 0);
      key = key * R.resource + (byResource ? item.resource : 0);
      key = key * R.owner + (byUser ? ownerRank(item.owner) : 0);
      key = key * R.byok + (byByok && item.byok ? 1 : 0);
      key = key * R.expert + (byExpert ? item.expert + 1 : 0);
      const row = index.rowOf(key);
      if (row === sums.rows) sums.add();
      const s = sums.data;
      const o = row * COLUMNS;
      s[o]! += item.billedMicros;
      s[o + 1]! += item.estimatedMicros;
      s[o + 2]! += item.baseMicros;
      s[o + 3]! += item.surchargeMicros;
      s[o + 4]! += item.inputTokens;
      s[o + 5]! += item.outputTokens;
      s[o + 6]! += item.cacheReadTokens;
      s[o + 7]! += item.cacheWriteTokens;
      s[o + 8]! += item.creditsCenti;
      if (item.extraCacheRead > 0n) giant.set(key, (giant.get(key) ?? 0n) + item.extraCacheRead);
    });
  }
  const order = Array.from(index.keys.keys()).sort((a, b) => index.keys[a]! - index.keys[b]!);
  return {
    keys: Float64Array.from(order, (row) => index.keys[row]!),
    rows: Int32Array.from(order),
    sums: sums.data,
    giant,
  };
}
