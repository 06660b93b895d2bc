import { DEFAULT_RANGE_DAYS, LOOKBACK_YEARS, MAX_RANGE_DAYS } from '../../contract/limits.js';
import { formatDay, minusYears, parseIsoDay, spanDays } from '../../util/utc-date.js';
import { invalidArgument } from '../http/errors.js';

export interface DayRange {
  start: number;
  end: number;
}

export interface RangeRules {
  today: number;
  /** credit-usage-by-user may end today; everything else ends yesterday at the latest. */
  allowToday: boolean;
  /** Every endpoint but credit-usage-by-user looks back at most two years. */
  lookback: boolean;
}

export function earliestDay(today: number): number {
  return minusYears(today, LOOKBACK_YEARS);
}

function parseDateParam(raw: string, name: string): number {
  const day = parseIsoDay(raw);
  if (day === undefined) throw invalidArgument(`${name} must be a date in YYYY-MM-DD format, got '${raw}'.`);
  return day;
}

function latestDay(rules: RangeRules): number {
  return rules.allowToday ? rules.today : rules.today - 1;
}

function latestLabel(rules: RangeRules): string {
  return `${formatDay(latestDay(rules))} (${rules.allowToday ? 'today' : 'yesterday'}, UTC)`;
}

/** The spec's date-range defaults and limits for dau-count, daily-usage, user-activity and credit-usage-by-user. */
export function resolveRange(startRaw: string | undefined, endRaw: string | undefined, rules: RangeRules): DayRange {
  const latest = latestDay(rules);
  const start = startRaw === undefined ? undefined : parseDateParam(startRaw, 'start_date');
  const end = endRaw === undefined ? undefined : parseDateParam(endRaw, 'end_date');
  if (end !== undefined && end > latest)
    throw invalidArgument(`end_date ${endRaw} is later than the latest queryable date ${latestLabel(rules)}.`);
  if (start !== undefined && start > latest)
    throw invalidArgument(`start_date ${startRaw} is later than the latest queryable date ${latestLabel(rules)}.`);

  let range: DayRange;
  if (start === undefined && end === undefined) {
    const yesterday = rules.today - 1;
    range = { start: yesterday - DEFAULT_RANGE_DAYS + 1, end: yesterday };
  } else if (end === undefined) {
    range = { start: start!, end: Math.min(start! + DEFAULT_RANGE_DAYS - 1, latest) };
  } else if (start === undefined) {
    range = { start: end - DEFAULT_RANGE_DAYS + 1, end };
  } else {
    range = { start, end };
  }
  checkRange(range, rules, start !== undefined);
  return range;
}

function checkRange(range: DayRange, rules: RangeRules, startGiven: boolean): void {
  if (range.start > range.end)
    throw invalidArgument(`start_date ${formatDay(range.start)} is after end_date ${formatDay(range.end)}.`);
  const days = spanDays(range.start, range.end);
  if (days > MAX_RANGE_DAYS)
    throw invalidArgument(
      `The date range covers ${days} days; at most ${MAX_RANGE_DAYS} days are allowed per request.`,
    );
  if (!rules.lookback) return;
  const earliest = earliestDay(rules.today);
  if (range.end < earliest || (startGiven && range.start < earliest)) {
    throw invalidArgument(`Dates before ${formatDay(earliest)} are beyond the ${LOOKBACK_YEARS}-year lookback.`);
  }
  // A defaulted start (only end_date given) is clamped to the lookback rather than rejected.
  range.start = Math.max(range.start, earliest);
}

/** The single `date` parameter: default yesterday, never today or later, within the lookback. */
export function resolveDate(raw: string | undefined, today: number): number {
  if (raw === undefined) return today - 1;
  const day = parseDateParam(raw, 'date');
  if (day > today - 1)
    throw invalidArgument(
      `date ${raw} is later than the latest queryable date ${formatDay(today - 1)} (yesterday, UTC).`,
    );
  if (day < earliestDay(today))
    throw invalidArgument(
      `date ${raw} is before ${formatDay(earliestDay(today))}, beyond the ${LOOKBACK_YEARS}-year lookback.`,
    );
  return day;
}

/** cost-analytics: both dates or neither; each must be a string. */
export function resolveCostRange(startRaw: unknown, endRaw: unknown, today: number): DayRange {
  for (const [name, value] of [
    ['start_date', startRaw],
    ['end_date', endRaw],
  ] as const) {
    if (value !== undefined && typeof value !== 'string')
      throw invalidArgument(`${name} must be a string in YYYY-MM-DD format.`);
  }
  if ((startRaw === undefined) !== (endRaw === undefined)) {
    throw invalidArgument('Both start_date and end_date are required when either is given.');
  }
  return resolveRange(startRaw as string | undefined, endRaw as string | undefined, {
    today,
    allowToday: false,
    lookback: true,
  });
}
