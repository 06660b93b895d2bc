import { DEFAULT_RANGE_DAYS, LOOKBACK_YEARS, MAX_RANGE_DAYS } from '../contract/limits.js';
import { dayFromMs, dayToMs, formatDay, minusYears, parseIsoDay } from '../util/utc-date.js';
import { UserInputError } from '../errors.js';
import { hourText, publishedAt, type Days } from './published-days.js';

/**
 * The spec's date rules, in UTC, applied before anything is sent: an invalid request is refused here
 * with a message that says what to change, and a valid one is always sent with explicit dates.
 */
export type DateRules = 'metrics' | 'credit' | 'cost';
export interface DayRange {
  start: number;
  end: number;
}

export const NAMED_RANGES = [
  'last_7_days',
  'last_30_days',
  'last_90_days',
  'month_to_date',
  'previous_month',
  'year_to_date',
] as const;
export type NamedRange = (typeof NAMED_RANGES)[number];

export function todayOf(nowMs: number): number {
  return dayFromMs(nowMs);
}

/** The latest day a request may name: yesterday, or today for credit usage. */
export function latestDay(rules: DateRules, today: number): number {
  return rules === 'credit' ? today : today - 1;
}

/**
 * The earliest day within the 2-year lookback. The spec does not say how two years are counted, so the
 * later of "two calendar years" and "730 days" is used: never a day the upstream could refuse.
 */
/**
 * The earliest day a question may name: the 2-year lookback, or earlier when the history store holds
 * older days (they stay answerable after the upstream has dropped them).
 */
export function earliestAnswerable(days: Pick<Days, 'today' | 'storedFrom'>): number {
  return Math.min(earliestDay(days.today), days.storedFrom ?? Number.POSITIVE_INFINITY);
}

export function earliestDay(today: number): number {
  return Math.max(minusYears(today, LOOKBACK_YEARS), today - 730);
}

function parse(text: string, name: string): number {
  const day = parseIsoDay(text);
  if (day === undefined)
    throw new UserInputError(`${name} '${text}' is not a date; use YYYY-MM-DD (UTC), for example 2026-01-31.`);
  return day;
}

function tooLate(name: string, day: number, rules: DateRules, days: Days): UserInputError {
  const latest = latestDay(rules, days.today);
  const text = formatDay(day);
  const what = day === days.today ? 'is today' : 'is in the future';
  const reason =
    rules === 'credit'
      ? `${name} ${text} ${what}; credit usage can be queried up to today, ${formatDay(latest)} (UTC).`
      : `${name} ${text} ${what}; the latest complete day is ${formatDay(days.published)} (UTC); a day's figures are published at ${hourText(days.refreshHour)} the next day.`;
  return new UserInputError(reason);
}

export interface RangeInput {
  start_date?: string;
  end_date?: string;
}

/**
 * Resolves dates as the upstream would (neither, only start, only end, both), then checks them. What the
 * caller leaves to a default ends on the latest published day (credit usage: the upstream's own default);
 * explicit dates are taken as asked. Ranges longer than 90 days are allowed here: the client splits them.
 */
export function resolveRange(input: RangeInput, rules: DateRules, days: Days): DayRange {
  const start = input.start_date === undefined ? undefined : parse(input.start_date, 'start_date');
  const end = input.end_date === undefined ? undefined : parse(input.end_date, 'end_date');
  return resolveDays(start, end, rules, days);
}

/** Days already named (compare_to's), checked by the date rules as the dates of a request are. */
export function checkRange(range: DayRange, rules: DateRules, days: Days): DayRange {
  return resolveDays(range.start, range.end, rules, days);
}

function resolveDays(start: number | undefined, end: number | undefined, rules: DateRules, days: Days): DayRange {
  const { today } = days;
  const latest = latestDay(rules, today);
  const defaultEnd = rules === 'credit' ? today - 1 : days.published;
  if (rules === 'cost' && (start === undefined) !== (end === undefined)) {
    throw new UserInputError(
      'Cost analytics needs both start_date and end_date, or neither (the 7 days ending on the latest published day).',
    );
  }
  if (end !== undefined && end > latest) throw tooLate('end_date', end, rules, days);
  if (start !== undefined && start > latest) throw tooLate('start_date', start, rules, days);
  let range: DayRange;
  if (start === undefined && end === undefined) range = { start: defaultEnd - DEFAULT_RANGE_DAYS + 1, end: defaultEnd };
  // Only a start: 7 days, but not past the latest published day unless the start itself is later.
  else if (end === undefined) {
    const cap = rules === 'credit' ? latest : Math.max(start!, days.published);
    range = { start: start!, end: Math.min(start! + DEFAULT_RANGE_DAYS - 1, cap) };
  } else if (start === undefined) range = { start: end - DEFAULT_RANGE_DAYS + 1, end };
  else range = { start, end };
  if (range.start > range.end)
    throw new UserInputError(
      `start_date ${formatDay(range.start)} is after end_date ${formatDay(range.end)}; swap them.`,
    );
  // Credit usage has no upstream lookback, but each 90 days costs at least one request of its 30/min budget:
  // the same two years bound it, so 1900-01-01 is refused rather than sent as 500 requests.
  const earliest = earliestAnswerable(days);
  if (range.end < earliest || (start !== undefined && range.start < earliest)) {
    throw new UserInputError(
      rules === 'credit'
        ? `Credit usage is answered for the last ${LOOKBACK_YEARS} years at most: the earliest day you can ask for is ${formatDay(earliest)} (UTC); a longer range would spend many minutes of the credit-usage rate limit.`
        : `Data is kept for ${LOOKBACK_YEARS} years: the earliest day you can ask for is ${formatDay(earliest)} (UTC).`,
    );
  }
  range.start = Math.max(range.start, earliest);
  return range;
}

/** A single `date`: default the latest published day, never today or later, within the lookback. */
export function resolveDate(text: string | undefined, days: Days): number {
  const { today } = days;
  if (text === undefined) return days.published;
  const day = parse(text, 'date');
  if (day > today - 1) throw tooLate('date', day, 'metrics', days);
  if (day < earliestAnswerable(days))
    throw new UserInputError(
      `Data is kept for ${LOOKBACK_YEARS} years: the earliest day you can ask for is ${formatDay(earliestAnswerable(days))} (UTC).`,
    );
  return day;
}

/** `range` or explicit dates, never both: the days they name under the date rules. */
export function resolveRangeArg(args: RangeInput & { range?: NamedRange }, rules: DateRules, days: Days): DayRange {
  if (args.range === undefined) return resolveRange(args, rules, days);
  if (args.start_date !== undefined || args.end_date !== undefined)
    throw new UserInputError('Give either range or start_date/end_date, not both.');
  // A named range ends on the latest allowed day and lies well within the lookback: nothing is left to check.
  return resolveNamedRange(args.range, rules, days);
}

const firstOf = (year: number, month: number) => dayFromMs(Date.UTC(year, month, 1));

/**
 * A named range in UTC. The rolling ones end on the latest published day (credit usage: today); the
 * calendar ones keep their meaning: month_to_date and year_to_date are today's month and year, up to that
 * day, and previous_month is the month before today's, cut at that day while its last days are not
 * published yet (namedPeriodEnd gives its calendar end). A month or year with no published day yet is
 * refused, never replaced by the one before.
 */
export function resolveNamedRange(name: NamedRange, rules: DateRules, days: Days): DayRange {
  const latest = rules === 'credit' ? days.today : days.published;
  const d = new Date(dayToMs(days.today));
  const [year, month] = [d.getUTCFullYear(), d.getUTCMonth()];
  const since = (start: number, what: string, instead: string): DayRange => {
    if (start > latest)
      throw new UserInputError(
        `${name}: ${what} has no published day yet (${publishedAt(start, days)}). ${instead}, or give start_date and end_date.`,
      );
    return { start, end: latest };
  };
  switch (name) {
    case 'last_7_days':
      return { start: latest - 6, end: latest };
    case 'last_30_days':
      return { start: latest - 29, end: latest };
    case 'last_90_days':
      return { start: latest - 89, end: latest };
    case 'month_to_date':
      return since(
        firstOf(year, month),
        `the month ${formatDay(firstOf(year, month)).slice(0, 7)}`,
        'For the month just ended use previous_month',
      );
    case 'previous_month':
      return { start: firstOf(year, month - 1), end: Math.min(firstOf(year, month) - 1, latest) };
    case 'year_to_date':
      return since(firstOf(year, 0), `the year ${year}`, 'For recent days use last_30_days');
  }
}

/** The last day of the period a named range names: previous_month's last day even while it is not published. */
export function namedPeriodEnd(name: NamedRange, rules: DateRules, days: Days): number {
  if (name !== 'previous_month') return resolveNamedRange(name, rules, days).end;
  const d = new Date(dayToMs(days.today));
  return firstOf(d.getUTCFullYear(), d.getUTCMonth()) - 1;
}

/** Consecutive windows of at most `maxDays` days covering [start, end], oldest first. */
export function splitRange(range: DayRange, maxDays = MAX_RANGE_DAYS): DayRange[] {
  const windows: DayRange[] = [];
  for (let start = range.start; start <= range.end; start += maxDays)
    windows.push({ start, end: Math.min(range.end, start + maxDays - 1) });
  return windows;
}

export function rangeText(range: DayRange): { start_date: string; end_date: string } {
  return { start_date: formatDay(range.start), end_date: formatDay(range.end) };
}
