import { z } from 'zod';
import { combineFreshness, type Freshness } from '../../domain/freshness.js';
import { earliestAnswerable, type DayRange } from '../../domain/dates.js';
import { UserInputError } from '../../errors.js';
import { askedFreshnessSchema, freshnessLine } from '../../format/freshness.js';
import { table } from '../../format/text.js';
import { formatDay, parseIsoDay } from '../../util/utc-date.js';
import { READ_ONLY, defineTool } from '../define-tool.js';
import { answerFreshness } from '../shared/complete-days.js';
import { date } from '../shared/inputs.js';
import { activePeriods, heldDay, historyStart } from './adoption-history.js';
import { cohorts, counted, periodOf, periodsOver, syncFor, type Granularity } from './adoption-periods.js';

/** Periods counted live at most, without the store: each is a walk of every active person. */
const LIVE_PERIODS = 8;
/** Periods counted live by default. */
const LIVE_DEFAULT = { week: 4, month: 3 } as const;

const DEFINED =
  "new: first active since the store begins; returning: active, seen before, not active in the previous period; retained: of the previous period's new people, those active in this one (not after history begins).";

function day(text: string | undefined, name: string): number | undefined {
  if (text === undefined) return undefined;
  const d = parseIsoDay(text);
  if (d === undefined) throw new UserInputError(`${name} '${text}' is not a date; use YYYY-MM-DD (UTC).`);
  return d;
}

export const getAdoption = defineTool({
  name: 'get_adoption',
  title: 'Adoption',
  description:
    "How adoption grows per week (Mon-Sun UTC) or month, through the latest complete day: active people, new (first seen in the history store), returning (back after a period away), retained (of the previous period's new). People only. Default: the stored history.",
  input: z.strictObject({
    granularity: z.enum(['week', 'month']).default('week'),
    start_date: date.optional().describe('YYYY-MM-DD, UTC'),
    end_date: date.optional().describe('YYYY-MM-DD, UTC'),
  }),
  output: z.object({
    granularity: z.enum(['week', 'month']),
    /** The first day of the stored history the figures count from; null: none (active only, live). */
    history_from: z.string().nullable(),
    periods: z.array(
      z.object({
        start_date: z.string(),
        end_date: z.string(),
        active: z.number().int(),
        new: z.number().int().nullable(),
        returning: z.number().int().nullable(),
        retained: z.number().int().nullable(),
        partial: z.boolean(),
        history_begins: z.boolean(),
      }),
    ),
    definitions: z.string(),
    /** What would make the figures known, when the store lacks the days. */
    needs: z.string().optional(),
    freshness: askedFreshnessSchema,
  }),
  annotations: READ_ONLY,
  async run(args, ctx) {
    const g: Granularity = args.granularity;
    const days = ctx.client.days();
    const { published } = days;
    const askedStart = day(args.start_date, 'start_date');
    const askedEnd = day(args.end_date, 'end_date');
    const end = Math.min(askedEnd ?? published, published);
    if (askedEnd !== undefined && askedEnd > published)
      throw new UserInputError(
        `end_date ${args.end_date} is not complete yet; the latest complete day is ${formatDay(published)} (UTC).`,
      );
    if (askedStart !== undefined && askedStart > end)
      throw new UserInputError(`start_date ${args.start_date} is after the end ${formatDay(end)}; swap them.`);
    const earliest = earliestAnswerable(days);
    if (askedStart !== undefined && askedStart < earliest)
      throw new UserInputError(`The earliest day you can ask for is ${formatDay(earliest)} (UTC).`);
    const freshness: Freshness[] = [];
    const from = counted(await historyStart(ctx, g), g, end);
    let needs: string | undefined;
    let periods: ReturnType<typeof cohorts>;
    if (from === null || from > end) {
      // Live: active people only; who is new or returning needs the history.
      const first = askedStart ?? end - LIVE_DEFAULT[g] * (g === 'week' ? 7 : 31);
      let spans = periodsOver({ start: first, end }, g);
      if (askedStart === undefined) spans = spans.slice(-LIVE_DEFAULT[g]);
      if (spans.length > LIVE_PERIODS)
        throw new UserInputError(
          `Without the history store at most ${LIVE_PERIODS} ${g}s are counted live (each reads every active person): ask a shorter range, or run \`${syncFor(g, spans[0]!.start, published)}\` first.`,
        );
      const active = await activePeriods(ctx, spans, spans[0]!.start, published, null, freshness);
      periods = cohorts(active, null);
      needs = `new, returning and retained need the history store: run \`${syncFor(g, spans[0]!.start, published)}\`.`;
    } else {
      // From where history begins: who is new needs everyone seen since; periods before the range are left out.
      const spans = periodsOver({ start: from, end }, g);
      // Weeks: their daily lists. Months: a stored month is one block; the month in progress its daily lists,
      // smaller than its days of user activity, when the store holds them.
      const byDay = async (period: DayRange, days: DayRange) =>
        g === 'week' || (period.end > published && (await heldDay(ctx, days.start)) && (await heldDay(ctx, days.end)));
      const active = await activePeriods(ctx, spans, from, published, byDay, freshness);
      const shownFrom = askedStart === undefined ? from : periodOf(askedStart, g).start;
      periods = cohorts(active, from).filter((p) => parseIsoDay(p.end_date)! >= shownFrom);
      if (askedStart !== undefined && askedStart < from)
        needs = `The history store begins on ${formatDay(from)}: for ${g}s from ${formatDay(askedStart)} run \`${syncFor(g, periodOf(askedStart, g).start, published)}\`.`;
    }
    return {
      granularity: g,
      history_from: from === null || from > end ? null : formatDay(from),
      periods,
      definitions: DEFINED,
      ...(needs ? { needs } : {}),
      freshness: answerFreshness(ctx, combineFreshness(freshness), {}, formatDay(end)),
    };
  },
  text(out) {
    const rows = out.periods.map((p) => [
      `${p.start_date}${p.partial ? '*' : ''}${p.history_begins ? ' (history begins)' : ''}`,
      p.active,
      p.new ?? '?',
      p.returning ?? '?',
      p.retained ?? '?',
    ]);
    const lines = [
      `Adoption per ${out.granularity}${out.history_from ? `, history from ${out.history_from}` : ', live (no history)'}:`,
      table([out.granularity, 'active', 'new', 'returning', 'retained'], rows),
      `* partial period. ${out.definitions}`,
    ];
    if (out.needs) lines.push(out.needs);
    lines.push(freshnessLine(out.freshness));
    return lines.join('\n');
  },
});
