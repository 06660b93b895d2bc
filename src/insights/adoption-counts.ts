import { LOOKBACK_YEARS } from '../contract/limits.js';
import { earliestDay, type DayRange } from '../domain/dates.js';
import type { Freshness } from '../domain/freshness.js';
import { UserInputError } from '../errors.js';
import { formatDay, parseIsoDay } from '../util/utc-date.js';
import type { StoreReader } from './digest-sums.js';
import { activePeriods, heldDay, seenBefore } from './adoption-history.js';
import {
  cohorts,
  periodOf,
  periodsOver,
  syncFor,
  type AdoptionGranularity,
  type PeriodFigures,
  type PeriodSets,
} from './adoption-periods.js';

/** Periods counted live at most, without the store: each is a walk of every active person. */
const LIVE_PERIODS = 8;
/** Periods counted live by default. */
const LIVE_DEFAULT = { week: 4, month: 3 } as const;

export interface Counts {
  periods: PeriodFigures[];
  /** The first day of the stored history the figures count from; undefined: live. */
  historyFrom?: number;
  needs?: string;
  covers?: string;
  /** The people behind each period's figures, in the order of `periods`. */
  sets: PeriodSets[];
}

/** Live: active people only; who is new or returning needs the history. */
export async function livePeriods(
  ctx: StoreReader,
  g: AdoptionGranularity,
  askedStart: number | undefined,
  end: number,
  freshness: Freshness[],
): Promise<Counts> {
  const { published, today } = ctx.client.days();
  const first = askedStart ?? end - LIVE_DEFAULT[g] * (g === 'week' ? 7 : 31);
  let spans = periodsOver({ start: first, end }, g);
  if (askedStart === undefined) spans = spans.slice(-LIVE_DEFAULT[g]);
  if (spans.length > LIVE_PERIODS)
    throw new UserInputError(
      `Without the history store at most ${LIVE_PERIODS} ${g}s are counted live (each reads every active person): ask a shorter range, or run \`${syncFor(g, spans[0]!.start, published)}\` first.`,
    );
  // The upstream refuses days beyond its lookback: a first period reaching there is counted from its earliest day.
  const from = Math.max(spans[0]!.start, earliestDay(today));
  const covers =
    from > spans[0]!.start
      ? `${formatDay(spans[0]!.start)}..${formatDay(from - 1)} left out: the API keeps ${LOOKBACK_YEARS} years (the first ${g} is partial).`
      : undefined;
  spans = spans.filter((p) => p.end >= from);
  if (spans.length === 0)
    throw new UserInputError(
      `Without the history store's days the earliest day you can ask for is ${formatDay(from)} (UTC): the API keeps ${LOOKBACK_YEARS} years.`,
    );
  const active = await activePeriods(ctx, spans, from, published, null, freshness);
  const sets: PeriodSets[] = [];
  return {
    periods: cohorts(active, null, undefined, sets),
    sets,
    needs: `new, returning and retained need the history store: run \`${syncFor(g, spans[0]!.start, published)}\`.`,
    covers,
  };
}

/**
 * From where history begins (`from`, its first whole period): who is new needs everyone seen since, the
 * stored days before it included; periods before the range asked for are left out.
 */
export async function storedPeriods(
  ctx: StoreReader,
  g: AdoptionGranularity,
  from: number,
  askedStart: number | undefined,
  end: number,
  freshness: Freshness[],
): Promise<Counts> {
  const { published } = ctx.client.days();
  const spans = periodsOver({ start: from, end }, g);
  // Weeks: their daily lists. Months: a stored month is one block; the month in progress its daily lists,
  // smaller than its days of user activity, when the store holds them.
  const byDay = async (period: DayRange, days: DayRange) =>
    g === 'week' || (period.end > published && (await heldDay(ctx, days.start)) && (await heldDay(ctx, days.end)));
  const active = await activePeriods(ctx, spans, from, published, byDay, freshness);
  // The stored days before the first whole period: not reported, but who was active then is not new later.
  const before = await seenBefore(ctx, from, freshness);
  const historyFrom = before?.first ?? from;
  const shownFrom = askedStart === undefined ? from : periodOf(askedStart, g).start;
  const all: PeriodSets[] = [];
  const shown = (p: PeriodFigures) => parseIsoDay(p.end_date)! >= shownFrom;
  const figures = cohorts(active, from, before?.people, all);
  const periods = figures.filter(shown);
  const sets = all.filter((_, i) => shown(figures[i]!));
  const whole = historyFrom < from ? `, its first whole ${g} on ${formatDay(from)}` : '';
  const needs =
    askedStart !== undefined && askedStart < from
      ? `The history store begins on ${formatDay(historyFrom)}${whole}: for ${g}s from ${formatDay(askedStart)} run \`${syncFor(g, periodOf(askedStart, g).start, published)}\`.`
      : undefined;
  return { periods, historyFrom, needs, sets };
}
