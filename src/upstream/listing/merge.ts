import { METRIC_FIELDS } from '../../contract/metrics.js';
import type { Metrics } from '../schemas.js';

/** What the merges of several endpoints share (each endpoint's own merge lives beside its descriptor in endpoints/). */

/** Daily series: the windows are disjoint days, oldest first. */
export function concat<T>(windows: T[][]): T[] {
  return windows.flat();
}

/** `b`'s metrics added to `sum`'s, in place. */
export function addMetricsTo(sum: Metrics, b: Metrics): Metrics {
  for (const f of METRIC_FIELDS) sum[f] += b[f];
  return sum;
}

export interface IdentityRef {
  user_email?: string;
  service_account_name?: string;
}

export function identityKey(r: IdentityRef): string {
  return r.user_email !== undefined ? `u:${r.user_email.toLowerCase()}` : `s:${r.service_account_name}`;
}
