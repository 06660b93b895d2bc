import { z } from 'zod';
import { UserInputError } from '../../errors.js';
import { commonDomain, int, shortId } from '../../format/text.js';
import { compareDecimals, divideDecimals, subtractDecimals } from '../../domain/numbers.js';
import type { DayRange } from '../../domain/dates.js';
import { minusYears, parseIsoDay } from '../../util/utc-date.js';
import { date } from './inputs.js';
import { change, type Exact } from './periods.js';
import { identityKey, type IdentityRef } from '../../upstream/listing/merge.js';
import { identityOf, identityOut } from './rows.js';

export const compareToInput = z
  .union([z.enum(['previous_period', 'previous_year']), z.strictObject({ start_date: date, end_date: date })])
  .optional()
  .describe('also this period, with changes');
export type CompareTo = z.output<typeof compareToInput>;

const moverOut = z.object({ ...identityOut, current: z.number(), previous: z.number(), change: z.number() });
export const comparisonOut = z.object({
  start_date: z.string(),
  end_date: z.string(),
  days: z.number().int(),
  current_days: z.number().int(),
  basis: z.enum(['totals', 'per_day']),
  metrics: z.array(
    z.object({
      name: z.string(),
      current: z.string(),
      previous: z.string(),
      absolute: z.string(),
      percent: z.number().nullable(),
    }),
  ),
  movers: z.object({ by: z.string(), rose: z.array(moverOut), fell: z.array(moverOut) }).optional(),
  left_out: z.array(z.string()).optional(),
});
export type Comparison = z.output<typeof comparisonOut>;

/**
 * A figure to compare: a sum (normalised per day when the periods differ in length), a level (an
 * average, a daily count), or a count of distinct identities over the whole period, which compares only
 * between periods of the same length.
 */
export type Figure = { name: string; value: number | string; kind: 'sum' | 'level' | 'distinct'; exact?: Exact };

/** The days to compare with: the same length just before, the same dates a year before, or the ones given. */
export function otherPeriod(to: NonNullable<CompareTo>, { start, end }: DayRange): DayRange {
  const range =
    to === 'previous_period'
      ? { start: start - (end - start + 1), end: start - 1 }
      : to === 'previous_year'
        ? { start: minusYears(start, 1), end: minusYears(end, 1) }
        : { start: parseIsoDay(to.start_date), end: parseIsoDay(to.end_date) };
  if (range.start === undefined || range.end === undefined || range.start > range.end)
    throw new UserInputError('compare_to needs start_date on or before end_date, as YYYY-MM-DD.');
  return range as DayRange;
}

const days = (p: { start_date: string; end_date: string }) => parseIsoDay(p.end_date)! - parseIsoDay(p.start_date)! + 1;

/**
 * The figures of both periods side by side; sums per day when the lengths differ, so that they compare,
 * and distinct counts then left out. `leftOut`: what the caller already left out, in words.
 */
export function comparison(
  current: { start_date: string; end_date: string; figures: Figure[] },
  previous: { start_date: string; end_date: string; figures: Figure[] },
  leftOut: string[] = [],
): Comparison {
  const [n, m] = [days(current), days(previous)];
  const basis = n === m ? 'totals' : 'per_day';
  const perDay = (f: Figure) => basis === 'per_day' && f.kind === 'sum';
  const value = (f: Figure, d: number) =>
    perDay(f) ? divideDecimals(String(f.value), String(d), 2)! : String(f.value);
  // Shown values are rounded (averages, sums per day); the percent comes from the exact ones.
  const exact = (f: Figure, d: number): Exact => {
    const e = f.exact ?? { num: String(f.value), den: 1n };
    return perDay(f) ? { num: e.num, den: e.den * BigInt(d) } : e;
  };
  const apart = current.figures.filter((f) => basis === 'per_day' && f.kind === 'distinct');
  const metrics = current.figures
    .filter((f) => !apart.includes(f))
    .map((f) => {
      const before = previous.figures.find((p) => p.name === f.name)!;
      const [a, b] = [value(f, n), value(before, m)];
      return { name: f.name, current: a, previous: b, ...change(a, b, [exact(f, n), exact(before, m)]) };
    });
  const left = [...leftOut, ...apart.map((f) => `${f.name} (distinct count, periods differ in length)`)];
  return {
    start_date: previous.start_date,
    end_date: previous.end_date,
    days: m,
    current_days: n,
    basis,
    metrics,
    ...(left.length ? { left_out: left } : {}),
  };
}

/**
 * Who rose and fell the most between the periods, by one value per identity (per day, to 2 decimals,
 * when the lengths differ). Values are exact (numbers or decimal strings) until they are shown.
 */
export function movers(by: string, c: Comparison, now: Map<string, Mover>, before: Map<string, Mover>, n = 5) {
  const scale = (v: number | string, d: number) =>
    c.basis === 'per_day' ? divideDecimals(String(v), String(d), 2)! : String(v);
  const rows = [...new Set([...now.keys(), ...before.keys()])].map((key) => {
    const x = now.get(key);
    const y = before.get(key);
    const current = scale(x?.value ?? 0, c.current_days);
    const previous = scale(y?.value ?? 0, c.days);
    return { id: (x ?? y)!.id, current, previous, change: subtractDecimals(current, previous) };
  });
  const order = (sign: number) =>
    rows
      .filter((r) => sign * compareDecimals(r.change, '0') > 0)
      .sort((a, b) => sign * compareDecimals(b.change, a.change) || (a.id.user < b.id.user ? -1 : 1))
      .slice(0, n)
      .map((r) => ({ ...r.id, current: Number(r.current), previous: Number(r.previous), change: Number(r.change) }));
  return { by, rose: order(1), fell: order(-1) };
}
export interface Mover {
  id: { user: string; kind: 'user' | 'service_account' };
  /** A count, or an exact decimal string (USD, credits). */
  value: number | string;
}

/** "vs 2026-09-22..2026-10-21 (totals): total_messages 1,200 → 1,300 (+100, +8.3%)", what was left out, and the movers. */
export function comparisonText(c: Comparison): string[] {
  const sign = (s: string) => (s.startsWith('-') ? s : `+${s}`);
  const basis = c.basis === 'totals' ? 'totals' : `per day: ${c.current_days} vs ${c.days} days`;
  const items = c.metrics.map(
    (m) =>
      `${m.name} ${int(m.previous)} → ${int(m.current)} (${sign(int(m.absolute))}${m.percent === null ? '' : `, ${m.percent >= 0 ? '+' : ''}${m.percent}%`})`,
  );
  const left = c.left_out ? [`${c.left_out.join(' and ')} left out of the comparison`] : [];
  const lines = [`vs ${c.start_date}..${c.end_date} (${basis}): ${[...items, ...left].join('; ')}.`];
  if (c.movers) {
    const domain = commonDomain([...c.movers.rose, ...c.movers.fell].map((r) => r.user));
    const list = (rs: NonNullable<Comparison['movers']>['rose']) =>
      rs.map((r) => `${shortId(r.user, domain)} ${sign(String(r.change))}`).join(', ') || 'none';
    lines.push(
      `Movers by ${c.movers.by}${domain ? ` (${domain})` : ''}: rose ${list(c.movers.rose)}; fell ${list(c.movers.fell)}.`,
    );
  }
  return lines;
}

/** One value per identity, for `movers`. */
export function moverMap<R extends IdentityRef>(
  rows: readonly R[],
  value: (r: R) => number | string,
): Map<string, Mover> {
  return new Map(rows.map((r) => [identityKey(r), { id: identityOf(r), value: value(r) }]));
}
