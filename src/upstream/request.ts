import { rangeText, type DayRange } from '../domain/dates.js';
import { formatDay } from '../util/utc-date.js';
import { canonicalKey } from './cache/canonical-key.js';

/** What a request needs of its operation to be written and keyed. */
export interface RequestTarget {
  method: 'GET' | 'POST';
  path: string;
  /** Where the parameters go: the query string (every value as text) or a JSON body. */
  params: 'query' | 'body';
  /** How it takes its days, when it takes any: a range (start_date and end_date) or one `date`. */
  dates?: { takes: 'range' | 'date' };
}

/**
 * One request, resolved once from a tool's arguments: the operation, its days, and its other parameters.
 * Days stay days until `written` puts them in the query string or the body.
 */
export interface UpstreamRequest<O extends RequestTarget = RequestTarget> {
  op: O;
  /** None for an operation without dates; one day for an operation that takes a `date`. */
  days?: DayRange;
  /** The operation's own parameters and paging, dates aside; undefined ones are left out. */
  params: Record<string, unknown>;
}

/** The parameters as sent: a query string of text values, or a JSON body. */
export interface Written {
  query?: Record<string, string>;
  body?: Record<string, unknown>;
}

export function written(request: UpstreamRequest): Written {
  const { op, days, params } = request;
  const dates = !days ? {} : op.dates?.takes === 'date' ? { date: formatDay(days.start) } : rangeText(days);
  const given = Object.entries({ ...dates, ...params }).filter(([, v]) => v !== undefined);
  if (op.params === 'body') return { body: Object.fromEntries(given) };
  return { query: Object.fromEntries(given.map(([k, v]) => [k, String(v)])) };
}

/**
 * The one key of a request: the cache's (scoped by the credential), a background walk's and the page
 * estimates'. It is made from the request as written, so that equal requests meet whatever the order or
 * form of their arguments, and entries stored in Redis or on disk keep their keys.
 */
export function requestKey(request: UpstreamRequest, scope: string): string {
  const { query, body } = written(request);
  return `${scope}|${request.op.method}|${request.op.path}|${canonicalKey(query ?? {})}|${canonicalKey(body ?? null)}`;
}
