import type { DayRange } from '../domain/dates.js';

/**
 * The rules of find_anomalies, on exact amounts: credits as integers, money as BigInt units at one scale
 * (the most decimals the upstream wrote), so that medians, comparisons and ratios never pass through floats.
 */

/** Values of one series by day; a day without a value counts as 0. `peak`: its largest value, when known. */
export interface Daily {
  get(day: number): bigint | undefined;
  readonly peak?: number;
}

/** Days a baseline looks back: the identity's previous 28 days, or the 4 same weekdays before. */
export const BASELINE_DAYS = 28;

/** An identity's spike: at least 5× its baseline, which is raised to at least 500 credits or $5. */
export const SPIKE_TIMES = 5n;
export const CREDIT_FLOOR = 500n;
export const COST_FLOOR_USD = 5n;

/** The least value a spike has, in units at `scale` decimals: a series that never reaches it is never one. */
export const leastSpike = (floor: bigint, scale: number) => SPIKE_TIMES * floor * 10n ** BigInt(scale);

/** A flagged day: `twice` is twice the baseline (the median of an even count is a half at most). */
export interface Flag {
  key: string;
  day: number;
  value: bigint;
  twice: bigint;
}

const byValue = (a: bigint, b: bigint) => (a < b ? -1 : a > b ? 1 : 0);

/** Twice the median of the values: the two middle ones added. */
function twiceMedian(values: bigint[]): bigint {
  values.sort(byValue);
  const n = values.length;
  return n % 2 ? 2n * values[(n - 1) / 2]! : values[n / 2 - 1]! + values[n / 2]!;
}

/**
 * Days whose value is at least `times` × the baseline: the median of the previous 28 days (missing days 0),
 * raised to `floor`. With `known`, only where that median is above 0 (a new series is flagged apart).
 */
export function spikes(
  series: ReadonlyMap<string, Daily>,
  days: DayRange,
  floor: bigint,
  times: bigint,
  known = false,
): Flag[] {
  const out: Flag[] = [];
  const least = times * floor;
  for (const [key, daily] of series) {
    // Cheap first: below times × floor, no baseline can make it a spike.
    if (daily.peak !== undefined && BigInt(daily.peak) < least) continue;
    for (let day = days.start; day <= days.end; day++) {
      const value = daily.get(day) ?? 0n;
      if (value < least || value === 0n) continue;
      const before: bigint[] = [];
      for (let d = day - BASELINE_DAYS; d < day; d++) before.push(daily.get(d) ?? 0n);
      const twice = twiceMedian(before);
      if (known && twice === 0n) continue;
      const base = twice > 2n * floor ? twice : 2n * floor;
      if (2n * value >= times * base) out.push({ key, day, value, twice: base });
    }
  }
  return out;
}

/**
 * Days that break from the weekday pattern: the median of the same weekday in the 4 weeks before, with
 * the value at least `up` times it or at most `1/up` of it (up as num/den).
 */
export function weekdayBreaks(daily: Daily, days: DayRange, num: bigint, den: bigint): Flag[] {
  const out: Flag[] = [];
  for (let day = days.start; day <= days.end; day++) {
    const value = daily.get(day) ?? 0n;
    const twice = twiceMedian([7, 14, 21, 28].map((k) => daily.get(day - k) ?? 0n));
    if (twice === 0n) continue;
    if (2n * value * den >= num * twice || 2n * value * num <= den * twice)
      out.push({ key: 'organization', day, value, twice });
  }
  return out;
}

/** The first day of `days` a series has a value above 0 after none in the 28 days before. */
export function firstAppearances(series: ReadonlyMap<string, Daily>, days: DayRange): Flag[] {
  const out: Flag[] = [];
  for (const [key, daily] of series) {
    for (let day = days.start; day <= days.end; day++) {
      if ((daily.get(day) ?? 0n) <= 0n) continue;
      let seen = false;
      for (let d = day - BASELINE_DAYS; d < day && !seen; d++) seen = (daily.get(d) ?? 0n) > 0n;
      if (!seen) out.push({ key, day, value: daily.get(day)!, twice: 0n });
      break;
    }
  }
  return out;
}

/** The value / baseline, to 2 decimals (half up), from the exact amounts; null when the baseline is 0. */
export function ratioOf(flag: Flag): number | null {
  if (flag.twice === 0n) return null;
  const hundredths = (2n * 2n * flag.value * 100n + flag.twice) / (2n * flag.twice);
  return Number(hundredths) / 100;
}

/** Units at `scale` decimals as the decimal string they are: 1234n at 2 = "12.34". */
export function unitsText(units: bigint, scale: number): string {
  const negative = units < 0n;
  const digits = (negative ? -units : units).toString().padStart(scale + 1, '0');
  const whole = digits.slice(0, digits.length - scale);
  return `${negative ? '-' : ''}${whole}${scale ? `.${digits.slice(digits.length - scale)}` : ''}`;
}

/** Half of `twice` as a decimal string: one more decimal when it is odd. */
export function halfText(twice: bigint, scale: number): string {
  return twice % 2n === 0n ? unitsText(twice / 2n, scale) : unitsText(twice * 5n, scale + 1);
}

/** The number of decimals of a decimal string. */
export function scaleOf(text: string): number {
  const dot = text.indexOf('.');
  return dot < 0 ? 0 : text.length - dot - 1;
}

/** A decimal string as units at `scale` (≥ its own decimals), exactly. */
export function unitsAt(text: string, scale: number): bigint {
  const [whole = '0', fraction = ''] = text.trim().split('.');
  const negative = whole.startsWith('-');
  const units = BigInt((negative ? whole.slice(1) : whole) + fraction.padEnd(scale, '0'));
  return negative ? -units : units;
}
