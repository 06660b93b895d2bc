import { bigIntToJson } from '../util/json.js';

/** Exact arithmetic for upstream amounts: decimal strings as BigInt fixed point, token counts as BigInt. */

const DECIMAL = /^(-?)(\d+)(?:\.(\d+))?$/;

interface Fixed {
  units: bigint;
  scale: number;
}

function parseDecimal(text: string): Fixed {
  const m = DECIMAL.exec(text.trim());
  if (!m) throw new Error(`not a decimal: ${JSON.stringify(text)}`);
  const fraction = m[3] ?? '';
  const units = BigInt(m[2]! + fraction);
  return { units: m[1] ? -units : units, scale: fraction.length };
}

function format({ units, scale }: Fixed): string {
  const negative = units < 0n;
  const digits = (negative ? -units : units).toString().padStart(scale + 1, '0');
  const whole = digits.slice(0, digits.length - scale);
  const fraction = scale > 0 ? `.${digits.slice(digits.length - scale)}` : '';
  return `${negative ? '-' : ''}${whole}${fraction}`;
}

/** The exact sum of decimal strings, keeping the largest number of decimals among them: "0.10" + "0.20" = "0.30". */
export function sumDecimals(values: Iterable<string>): string {
  const list = Array.isArray(values) ? (values as string[]) : [...values];
  return sumSafely(list) ?? sumBig(list);
}

/**
 * The same sum in integer units held as doubles, exact while every units value and partial sum is a safe integer
 * (amounts up to some billions of dollars at six decimals): several times faster than BigInt, which sums the rest.
 */
function sumSafely(values: readonly string[]): string | undefined {
  let units = 0;
  let scale = 0;
  for (const text of values) {
    if (!DECIMAL.test(text)) return undefined;
    const t = text.trim();
    const dot = t.indexOf('.');
    const places = dot < 0 ? 0 : t.length - dot - 1;
    const next = Number(dot < 0 ? t : t.slice(0, dot) + t.slice(dot + 1));
    if (places > scale) {
      units *= 10 ** (places - scale);
      scale = places;
    }
    const term = next * 10 ** (scale - places);
    // Each step checked: a result beyond 2^53 is never rounded back into the safe range unnoticed.
    if (!Number.isSafeInteger(next) || !Number.isSafeInteger(term) || !Number.isSafeInteger(units)) return undefined;
    units += term;
    if (!Number.isSafeInteger(units)) return undefined;
  }
  if (values.length === 0) return '0';
  // -0 (a sum of "-0.00" alone) reads as the BigInt path writes it.
  return format({ units: BigInt(units), scale });
}

function sumBig(values: readonly string[]): string {
  let total: Fixed = { units: 0n, scale: 0 };
  let any = false;
  for (const value of values) {
    const next = parseDecimal(value);
    const scale = Math.max(total.scale, next.scale);
    total = {
      units: total.units * 10n ** BigInt(scale - total.scale) + next.units * 10n ** BigInt(scale - next.scale),
      scale,
    };
    any = true;
  }
  return any ? format(total) : '0';
}

/**
 * A sum as the upstream writes amounts: trailing zeros dropped, but at least two decimals ("0.002390" →
 * "0.00239", "4" → "4.00"), so that a sum of days reads the same as the upstream's own sum of the range.
 */
export function tidyDecimal(text: string): string {
  const [whole, fraction = ''] = text.split('.');
  return `${whole}.${fraction.replace(/0+$/, '').padEnd(2, '0')}`;
}

/** Compares two decimal strings exactly: negative, zero or positive like a sort comparator. */
export function compareDecimals(a: string, b: string): number {
  const x = parseDecimal(a);
  const y = parseDecimal(b);
  const scale = Math.max(x.scale, y.scale);
  const d = x.units * 10n ** BigInt(scale - x.scale) - y.units * 10n ** BigInt(scale - y.scale);
  return d < 0n ? -1 : d > 0n ? 1 : 0;
}

export type BigCount = number | string;

export function toBigInt(value: BigCount | bigint): bigint {
  return typeof value === 'bigint' ? value : BigInt(value);
}

/** A count as the API writes it: a JSON number up to 2^53−1, a decimal string above. Shared with the simulator, hence in util/. */
export const fromBigInt: (value: bigint) => BigCount = bigIntToJson;

export function sumCounts(values: Iterable<BigCount>): BigCount {
  const list = Array.isArray(values) ? (values as BigCount[]) : [...values];
  // Numbers while the sum stays a safe integer (as the API writes it then); BigInt from the first that is not.
  let sum = 0;
  for (const v of list) {
    if (typeof v !== 'number' || !Number.isSafeInteger(v)) return sumBigCounts(list);
    sum += v;
    if (!Number.isSafeInteger(sum)) return sumBigCounts(list);
  }
  return sum;
}

function sumBigCounts(values: readonly BigCount[]): BigCount {
  let total = 0n;
  for (const v of values) total += toBigInt(v);
  return fromBigInt(total);
}

function align(a: Fixed, b: Fixed): [bigint, bigint, number] {
  const scale = Math.max(a.scale, b.scale);
  return [a.units * 10n ** BigInt(scale - a.scale), b.units * 10n ** BigInt(scale - b.scale), scale];
}

/**
 * value × num / den, exactly, then rounded half up to `places` decimals (default: the value's own, which
 * is exact when den is 1): "10" × 31 / 20 to 0 places = "16".
 */
export function scaleDecimal(value: string, num: bigint, den: bigint, places?: number): string {
  const v = parseDecimal(value);
  places ??= v.scale;
  const numerator = v.units * num * 10n ** BigInt(places);
  const denominator = den * 10n ** BigInt(v.scale);
  const negative = numerator < 0n !== denominator < 0n;
  const [n, d] = [numerator < 0n ? -numerator : numerator, denominator < 0n ? -denominator : denominator];
  const units = (2n * n + d) / (2n * d);
  return format({ units: negative ? -units : units, scale: places });
}

/** The smallest integer k with k × b ≥ a, for b > 0. */
export function ceilRatio(a: string, b: string): bigint {
  const [x, y] = align(parseDecimal(a), parseDecimal(b));
  if (y <= 0n) throw new Error('ceilRatio needs a positive divisor');
  return x <= 0n ? -(-x / y) : (x + y - 1n) / y;
}

/** a − b, exactly. */
export function subtractDecimals(a: string, b: string): string {
  const [x, y, scale] = align(parseDecimal(a), parseDecimal(b));
  return format({ units: x - y, scale });
}

/** a / b rounded half up to `places` decimals; null when b is zero. */
export function divideDecimals(a: string, b: string, places: number): string | null {
  const [x, y] = align(parseDecimal(a), parseDecimal(b));
  return y === 0n ? null : scaleDecimal(x.toString(), 1n, y, places);
}

/** `part` as a percent of `whole`, to one decimal (a ratio to three places, as shown); null when `whole` is zero. */
export function percentOf(part: string, whole: string): number | null {
  const ratio = divideDecimals(part, whole, 3);
  return ratio === null ? null : Math.round(Number(ratio) * 1000) / 10;
}
