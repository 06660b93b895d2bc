import { z } from 'zod';
import { formatDay, parseIsoDay, weekday } from '../../util/utc-date.js';
import { exactPercent, type Exact } from '../shared/periods.js';

export interface DayCount {
  date: string;
  user_count: number;
}

const span = z.object({ start: z.string(), end: z.string(), average: z.number() });
export const trendOut = z
  .object({
    method: z.enum(['full_weeks', 'halves']),
    from: span,
    to: span,
    change_percent: z.number().nullable(),
  })
  .nullable()
  .describe('null: under 14 days');
export type Trend = z.output<typeof trendOut>;

/** Mean to one decimal; null for no values. */
export function mean(xs: readonly number[]): number | null {
  return xs.length ? Math.round((xs.reduce((a, b) => a + b, 0) / xs.length) * 10) / 10 : null;
}

/** The Monday-to-Sunday (UTC) weeks the days cover in full, with their averages. */
export function fullWeeks(days: readonly DayCount[]): Array<{ week_start: string; average: number }> {
  const byDay = new Map(days.map((d) => [parseIsoDay(d.date)!, d.user_count]));
  const first = Math.min(...byDay.keys());
  const last = Math.max(...byDay.keys());
  const weeks = [];
  // Monday is weekday 1: the first Monday on or after the first day.
  for (let monday = first + ((8 - weekday(first)) % 7); monday + 6 <= last; monday += 7) {
    const counts = [0, 1, 2, 3, 4, 5, 6].map((i) => byDay.get(monday + i));
    if (counts.some((c) => c === undefined)) continue;
    weeks.push({ week_start: formatDay(monday), average: mean(counts as number[])! });
  }
  return weeks;
}

/**
 * A trend that compares like with like: the first and last full weeks (Monday to Sunday, UTC) when there
 * are two, else the first and last 7·k days of a range of at least 14, so that both sides hold every
 * weekday equally often. A partial week is never compared: its weekend share would make the change.
 */
export function dauTrend(days: readonly DayCount[]): Trend {
  if (days.length < 14) return null;
  const weeks = fullWeeks(days);
  const at = (start: string, n: number) => {
    const i = days.findIndex((d) => d.date === start);
    const part = days.slice(i, i + n);
    return { start: part[0]!.date, end: part.at(-1)!.date, average: mean(part.map((d) => d.user_count))! };
  };
  // The change from the exact averages (sum over count), not the rounded ones shown.
  const exact = (span: { start: string; end: string }): Exact => {
    const part = days.filter((d) => d.date >= span.start && d.date <= span.end);
    return { num: String(part.reduce((n, d) => n + d.user_count, 0)), den: BigInt(part.length) };
  };
  let from;
  let to;
  let method: 'full_weeks' | 'halves';
  if (weeks.length >= 2) {
    method = 'full_weeks';
    from = at(weeks[0]!.week_start, 7);
    to = at(weeks.at(-1)!.week_start, 7);
  } else {
    method = 'halves';
    const n = 7 * Math.floor(days.length / 14);
    from = at(days[0]!.date, n);
    to = at(days[days.length - n]!.date, n);
  }
  return { method, from, to, change_percent: exactPercent(exact(to), exact(from)) };
}

/** "+18.2% first to last full week (177 → 199, weeks of 2026-08-24 and 2026-11-09)"; `dates: false` when a list shows them. */
export function trendText(t: NonNullable<Trend>, dates = true): string {
  const sign = t.change_percent === null ? '' : t.change_percent >= 0 ? '+' : '';
  const change = t.change_percent === null ? 'n/a' : `${sign}${t.change_percent}%`;
  const what = t.method === 'full_weeks' ? 'first to last full week' : 'first to last equal half';
  const when =
    t.method === 'full_weeks'
      ? `weeks of ${t.from.start} and ${t.to.start}`
      : `${t.from.start}..${t.from.end} and ${t.to.start}..${t.to.end}`;
  return `${change} ${what} (${Math.round(t.from.average)} → ${Math.round(t.to.average)}${dates || t.method === 'halves' ? `, ${when}` : ''})`;
}
