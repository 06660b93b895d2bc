import { checkRange, type DayRange } from '../../domain/dates.js';
import { publishedAt, type Days } from '../../domain/published-days.js';
import { UserInputError } from '../../errors.js';
import { dayFromMs, dayToMs, formatDay } from '../../util/utc-date.js';

const firstOf = (year: number, month: number) => dayFromMs(Date.UTC(year, month, 1));
const monthOfDay = (day: number) => formatDay(day).slice(0, 7);

/** The first and last day of a `YYYY-MM` month. */
function monthDays(text: string, name: string): DayRange {
  const m = /^(\d{4})-(\d{2})$/.exec(text);
  const month = m ? Number(m[2]) : 0;
  if (!m || month < 1 || month > 12)
    throw new UserInputError(`${name} '${text.slice(0, 20)}' is not a month; use YYYY-MM, for example 2026-10.`);
  return { start: firstOf(Number(m[1]), month - 1), end: firstOf(Number(m[1]), month) - 1 };
}

/** The latest calendar month whose every day is published. */
export function latestCompleteMonth(days: Days): string {
  const d = new Date(dayToMs(days.published + 1));
  return monthOfDay(firstOf(d.getUTCFullYear(), d.getUTCMonth()) - 1);
}

/**
 * The days of whole calendar months, `start_month`..`end_month` (default: the latest complete month). A month
 * not over yet, or whose last day is not published yet, is refused: a chargeback bills whole months.
 */
export function chargebackMonths(args: { start_month?: string; end_month?: string }, days: Days): DayRange {
  const latest = latestCompleteMonth(days);
  const endMonth = args.end_month ?? (args.start_month && args.start_month > latest ? args.start_month : latest);
  const first = monthDays(args.start_month ?? endMonth, 'start_month');
  const last = monthDays(endMonth, 'end_month');
  if (first.start > last.start)
    throw new UserInputError(`start_month ${args.start_month} is after end_month ${endMonth}; swap them.`);
  if (last.end > days.published)
    throw new UserInputError(
      `${monthOfDay(last.start)} is not complete yet: ${publishedAt(last.end, days)}. The latest complete month is ${latest}.`,
    );
  return checkRange({ start: first.start, end: last.end }, 'cost', days);
}

/** The calendar month of a day, as day numbers. */
export function calendarMonthOf(day: number): DayRange {
  const d = new Date(dayToMs(day));
  return {
    start: firstOf(d.getUTCFullYear(), d.getUTCMonth()),
    end: firstOf(d.getUTCFullYear(), d.getUTCMonth() + 1) - 1,
  };
}
