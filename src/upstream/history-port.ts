import type { DayRange } from '../domain/dates.js';
import type { Freshness } from '../domain/freshness.js';
import type { UpstreamRequest } from './request.js';

/** Stored days of a request, as the rows the upstream would have sent for them. */
export interface StoredPart {
  days: DayRange;
  items: unknown[];
  freshness: Freshness;
}

/** What a history store gives the client: the part of a request it holds, and what it keeps of live answers. */
export interface HistoryPort {
  /** The stored parts of the request's days and the days it lacks; null when it holds none of them. */
  cover(request: UpstreamRequest & { days: DayRange }): Promise<{ parts: StoredPart[]; missing: DayRange[] } | null>;
  /** The earliest day stored (any dataset), or undefined: questions may reach back to it. */
  storedFrom(): number | undefined;
  /** A complete live answer of one window, as it passes: kept when it is what the store holds per day or month. */
  keep(request: UpstreamRequest & { days: DayRange }, window: DayRange, items: unknown[], fetchedAt: string): void;
}
