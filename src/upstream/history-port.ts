import type { DayRange } from '../domain/dates.js';
import type { Freshness } from '../domain/freshness.js';
import type { RequestTarget, UpstreamRequest } from './request.js';

/** Stored days of a request, as the rows the upstream would have sent for them. */
export interface StoredPart {
  days: DayRange;
  items: unknown[];
  freshness: Freshness;
}

/** A request of days to a named operation (its name says which listing it is). */
export type HistoryRequest = UpstreamRequest<RequestTarget & { name: string }> & { days: DayRange };

/** What a history store gives the client: the part of a request it holds, and what it keeps of live answers. */
export interface HistoryPort {
  /**
   * The stored parts of the request's days and the days it lacks; null when it holds none of them. With
   * `daysOnly`, the parts come without their rows (which days are held, read from the block list alone).
   */
  cover(request: HistoryRequest, daysOnly?: boolean): Promise<{ parts: StoredPart[]; missing: DayRange[] } | null>;
  /** The earliest day stored (any dataset), or undefined: questions may reach back to it. */
  storedFrom(): number | undefined;
  /** A complete live answer of one window, as it passes: kept when it is what the store holds per day or month. */
  keep(request: HistoryRequest, window: DayRange, items: unknown[], fetchedAt: string): void;
  /** Resolves once the store is open (it opens on first use), so that `storedFrom` knows its earliest day. */
  ready?(): Promise<void>;
}

/**
 * What the insights tools read of stored blocks, summed per identity when stored: people active (`active`, with
 * their active days), on the daily active lists (`dau`), credits (`credits`), and billed USD (`billed`).
 */
export type DigestName = 'active' | 'dau' | 'credits' | 'billed';

/** One stored block's digest: identities by the store's numbers, ascending, and their exact values. */
export interface Digest {
  days: DayRange;
  ids: number[];
  /** Integers (units at `scale` decimals for billed USD); a string where beyond 2^53. */
  v: Array<number | string>;
  scale: number;
  /** The sum of rows without an identity (bots, deleted accounts). */
  rest: number | string;
  /** Billed digests: the cost's credits of the same rows, by the same position (digests stored before it lack it). */
  credits?: { v: Array<number | string>; scale: number; rest: number | string };
  freshness: Freshness;
}

/** The digests of stored days, and the names behind their numbers: what the tools and the sync read of the store beside the client. */
export interface DigestPort {
  /**
   * The digests that cover the days exactly (months first, then days; days only with `byDay`); null when the
   * store lacks any day. Blocks due to be fetched again count: they are what the last sync stored, and their
   * freshness says when that was.
   */
  digests(name: DigestName, days: DayRange, byDay?: boolean): Promise<Digest[] | null>;
  /** `u:<email>` or `s:<service account>`, as first written, by number. */
  names(ids: Iterable<number>): Promise<Map<number, string>>;
  /** The largest number given to an identity so far (0: none). */
  lastId(): Promise<number>;
}

/** The digests where there is no history store: none stored, no names, no numbers. */
export const NO_DIGESTS: DigestPort = {
  digests: async () => null,
  names: async () => new Map(),
  lastId: async () => 0,
};
