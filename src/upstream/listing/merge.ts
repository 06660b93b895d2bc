import { METRIC_FIELDS } from '../../contract/metrics.js';
import type { Metrics } from '../schemas.js';

/** What the merges of several endpoints share (each endpoint's own merge lives beside its descriptor in endpoints/). */

/** Daily series: the windows are disjoint days, oldest first. */
export function concat<T>(windows: T[][]): T[] {
  return windows.flat();
}

export function addMetrics(a: Metrics, b: Metrics): Metrics {
  const out = { ...a };
  for (const f of METRIC_FIELDS) out[f] = a[f] + b[f];
  return out;
}

export interface IdentityRef {
  user_email?: string;
  service_account_name?: string;
}

export function identityKey(r: IdentityRef): string {
  return r.user_email !== undefined ? `u:${r.user_email.toLowerCase()}` : `s:${r.service_account_name}`;
}
