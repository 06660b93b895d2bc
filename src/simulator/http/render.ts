import { METRIC_COUNT, METRIC_FIELDS, type Metrics } from '../../contract/metrics.js';
import type { Organization } from '../data/organization.js';

export type IdentityField = { user_email: string } | { service_account_name: string };

export function identityField(org: Organization, index: number): IdentityField {
  const identity = org.identities[index]!;
  return identity.kind === 'user' ? { user_email: identity.id } : { service_account_name: identity.id };
}

/** A packed metrics row (any numeric array) as the API's metrics object. */
export function metricsObject(values: ArrayLike<number>, offset = 0): Metrics {
  const out = {} as Metrics;
  for (let k = 0; k < METRIC_COUNT; k++) out[METRIC_FIELDS[k]!] = values[offset + k]!;
  return out;
}

/** An integer amount in 10^-scale units as a decimal string with at least two decimals: 1234500 (scale 6) → "1.2345". */
export function decimalString(units: number | bigint, scale: number): string {
  const value = BigInt(units);
  const negative = value < 0n;
  const digits = (negative ? -value : value).toString().padStart(scale + 1, '0');
  const whole = digits.slice(0, digits.length - scale);
  let fraction = digits.slice(digits.length - scale).replace(/0+$/, '');
  if (fraction.length < 2) fraction = fraction.padEnd(2, '0');
  return `${negative ? '-' : ''}${whole}.${fraction}`;
}
