import { z } from 'zod';
import { combineFreshness, type Freshness } from '../../domain/freshness.js';
import { earliestAnswerable } from '../../domain/dates.js';
import { UserInputError } from '../../errors.js';
import { askedFreshnessSchema, freshnessLine } from '../../format/freshness.js';
import { table } from '../../format/text.js';
import { formatDay, parseIsoDay } from '../../util/utc-date.js';
import { READ_ONLY, defineTool } from '../define-tool.js';
import { answerFreshness } from '../shared/complete-days.js';
import { date } from '../shared/inputs.js';
import { livePeriods, storedPeriods } from '../../insights/adoption-counts.js';
import { historyStart } from '../../insights/adoption-history.js';
import { counted, type AdoptionGranularity } from '../../insights/adoption-periods.js';
import { groupsOut, orgInputs } from '../shared/org-groups.js';
import { groupsText } from '../shared/org-groups-text.js';
import { adoptionGroups } from './adoption-by-group.js';

const DEFINED =
  "new: first active since history_from (stored days before the first whole period count as seen); returning: active, seen before, not active in the previous period; retained: of the previous period's new people, those active in this one (not after history begins).";

function day(text: string | undefined, name: string): number | undefined {
  if (text === undefined) return undefined;
  const d = parseIsoDay(text);
  if (d === undefined) throw new UserInputError(`${name} '${text}' is not a date; use YYYY-MM-DD (UTC).`);
  return d;
}

export const getAdoption = defineTool({
  name: 'get_adoption',
  toolset: 'insights',
  title: 'Adoption',
  description:
    "How adoption grows per week (Mon-Sun UTC) or month, through the latest complete day: active people, new (first seen in the history store), returning (back after a period away), retained (of the previous period's new). People only. Default: the stored history.",
  input: z.strictObject({
    granularity: z.enum(['week', 'month']).default('week'),
    start_date: date.optional().describe('YYYY-MM-DD, UTC'),
    end_date: date.optional().describe('YYYY-MM-DD, UTC'),
    ...orgInputs,
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
    /** Days of the range left out: beyond the API's lookback. */
    covers: z.string().optional(),
    ...groupsOut,
    freshness: askedFreshnessSchema,
  }),
  annotations: READ_ONLY,
  async run(args, ctx) {
    const g: AdoptionGranularity = args.granularity;
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
    const counts =
      from === null || from > end
        ? await livePeriods(ctx, g, askedStart, end, freshness)
        : await storedPeriods(ctx, g, from, askedStart, end, freshness);
    const { periods, needs, covers, historyFrom } = counts;
    const groups = await adoptionGroups(ctx, args, counts, end);
    return {
      granularity: g,
      history_from: historyFrom === undefined ? null : formatDay(historyFrom),
      periods,
      definitions: DEFINED,
      ...(needs ? { needs } : {}),
      ...(covers ? { covers } : {}),
      ...(groups ? { groups } : {}),
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
    if (out.covers) lines.push(out.covers);
    const last = out.periods.at(-1)?.start_date;
    if (out.groups && last)
      lines.push(
        `By group, the ${out.granularity} of ${last} (every ${out.granularity} in the structured result):`,
        groupsText(out.groups, (v) =>
          ['active', 'new', 'returning', 'retained']
            .filter((f) => v[`${last}:${f}`] !== undefined)
            .map((f) => `${f} ${v[`${last}:${f}`]}`)
            .join(', '),
        ),
      );
    lines.push(freshnessLine(out.freshness));
    return lines.join('\n');
  },
});
