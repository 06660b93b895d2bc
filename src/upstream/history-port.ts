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
  /** The stored parts of the request's days and the days it lacks; null when it holds none of them. */
  cover(request: HistoryRequest): Promise<{ parts: StoredPart[]; missing: DayRange[] } | null>;
  /** The earliest day stored (any dataset), or undefined: questions may reach back to it. */
  storedFrom(): number | undefined;
  /** A complete live answer of one window, as it passes: kept when it is what the store holds per day or month. */
  keep(request: HistoryRequest, window: DayRange, items: unknown[], fetchedAt: string): void;
  /** Resolves once the store is open (it opens on first use), so that `storedFrom` knows its earliest day. */
  ready?(): Promise<void>;
}
