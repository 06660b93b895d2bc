/**
 * The ids in the store's `dataset` column (history_blocks and history_rows), made and told apart here only. One
 * column holds six kinds; a block's kind says who writes it and who may read it:
 * - `dataset`: what the sync fetches, per day or per month (datasets.ts), e.g. `user-activity`, `cost-by-day`;
 * - `rollup`: cost summed to fewer rows when its day or month is stored (derived/cost-rollups.ts):
 *   `<dataset>-by-<shape>`, e.g. `cost-by-day-by-user`;
 * - `span:<dataset or rollup>`: aligned runs of its days or months, summed after a sync (derived/spans.ts);
 * - `digest:<dataset>`: one row per block of what the insights read of it (derived/digests.ts);
 * - `range:<name>`: a trailing window fetched as one request before its days are in (range-blocks.ts);
 * - `staging:<dataset or rollup>`: rows of a fetch or a sum not committed yet; no block lists them (store-rows.ts).
 * Datasets and rollups answer questions as they are; spans and range blocks answer whole windows; digests are
 * read by the insights only; staged rows by nobody.
 */

export type BlockKind = 'dataset' | 'rollup' | 'span' | 'digest' | 'range' | 'staging';

/** The shapes of the cost rollups, the last part of their ids: in all, by resource, by user. */
export const ROLLUP_SHAPES = ['total', 'resource', 'user'] as const;
export type RollupShape = (typeof ROLLUP_SHAPES)[number];

const PREFIXED = ['span', 'digest', 'range', 'staging'] as const;

/** The id of the rollup of `from` in `shape`. */
export const rollupId = (from: string, shape: RollupShape) => `${from}-by-${shape}`;
/** The id of the spans summing a dataset or a rollup. */
export const spanId = (of: string) => `span:${of}`;
/** The id of the digests of a dataset's blocks. */
export const digestId = (of: string) => `digest:${of}`;
/** The id of the range blocks of a trailing-window question (`name`, e.g. `cost-by-user`). */
export const rangeId = (name: string) => `range:${name}`;
/** The id the rows of a dataset or a rollup are staged under until their transaction. */
export const stagingId = (of: string) => `staging:${of}`;

/** Which kind of block an id of the `dataset` column names. */
export function kindOf(id: string): BlockKind {
  const prefixed = PREFIXED.find((kind) => id.startsWith(`${kind}:`));
  if (prefixed) return prefixed;
  return ROLLUP_SHAPES.some((shape) => id.endsWith(`-by-${shape}`)) ? 'rollup' : 'dataset';
}
