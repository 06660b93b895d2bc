import type { z } from 'zod';
import type { RateGroup } from '../../contract/limits.js';
import type { DayRange } from '../../domain/dates.js';
import type { CachePolicy } from '../../domain/freshness.js';
import type { HttpResponse } from './http.js';

/** One upstream endpoint: where it is, how it is limited, retried, cached and validated. */
export interface Operation<S extends z.ZodType> {
  /** The last segment of its path, as messages and errors name it. */
  name: string;
  method: 'GET' | 'POST';
  path: string;
  host: 'api' | 'site';
  /** null: not rate limited (the public changelog). */
  group: RateGroup | null;
  retry: 'read' | 'write';
  schema: S;
  /** null: never cached (budget reads and writes). `days`: the request's; `refreshHour`: the daily refresh hour (UTC). */
  cache: ((now: number, days: DayRange | undefined, refreshHour: number) => CachePolicy) | null;
}

/** Sends the request once with this bearer token (none for the public changelog) and hands back the response. */
export type SendWith = (bearer: string | undefined) => Promise<HttpResponse>;
