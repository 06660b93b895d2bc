import { z } from 'zod';
import { askedFreshnessSchema, freshnessLine, type FreshnessOut } from '../../format/freshness.js';
import { int, plural } from '../../format/text.js';
import { dauCount } from '../../upstream/endpoints/dau-count.js';
import { dauTrend, fullWeeks, mean, trendOut, trendText } from './dau-trend.js';
import { comparable } from '../shared/comparable.js';
import { answerFreshness } from '../shared/complete-days.js';
import type { Exact } from '../shared/periods.js';
import { parseIsoDay, weekday } from '../../util/utc-date.js';
import { READ_ONLY, defineTool } from '../define-tool.js';
import { listAll } from '../../upstream/listing/list-all.js';
import { rangeArg, rangeInputs, rangeRequest } from '../shared/inputs.js';
import { groupsOut, orgInputs } from '../shared/org-groups.js';
import { groupsText } from '../shared/org-groups-text.js';
import { activeByGroup } from './active-by-group.js';

const day = z.object({ date: z.string(), user_count: z.number().int() });
type Day = z.output<typeof day>;

const isWeekend = (date: string) => [0, 6].includes(weekday(parseIsoDay(date)!));

/** The days whose figures are published: the summary and the comparison count these only. */
const publishedOnly = (days: readonly Day[], f: FreshnessOut) => days.filter((d) => !f.not_published?.includes(d.date));

/** The exact mean of the counts, as a sum over a count (a comparison has published days on both sides). */
const exactMean = (days: readonly Day[]): Exact => ({
  num: String(days.reduce((n, d) => n + d.user_count, 0)),
  den: BigInt(Math.max(1, days.length)),
});

/** What the tool asks the upstream for: the daily counts over the range. */
const asked = rangeRequest(dauCount);

export const getActiveUserCounts = comparable(
  defineTool({
    name: 'get_active_user_counts',
    toolset: 'usage',
    title: 'Daily active user counts',
    description:
      'Daily active users (people and service accounts per UTC day) with average, weekday/weekend split, peak and a trend over full Mon–Sun weeks. ' +
      'Default: the last 7 complete days; 2 years of history.',
    input: z.strictObject({ ...rangeInputs, ...orgInputs }),
    output: z.object({
      start_date: z.string(),
      end_date: z.string(),
      days: z.array(day),
      summary: z.object({
        days: z.number().int(),
        average: z.number().nullable(),
        weekday_average: z.number().nullable(),
        weekend_average: z.number().nullable(),
        peak: day.nullable(),
        low: day.nullable(),
        weekly_averages: z
          .array(z.object({ week_start: z.string(), average: z.number() }))
          .describe('full Monday-Sunday weeks only'),
        trend: trendOut,
      }),
      ...groupsOut,
      freshness: askedFreshnessSchema,
    }),
    annotations: READ_ONLY,
    requests: { of: asked, warm: { 'dau-count': {} } },
    async run(args, ctx) {
      const { listing, args: listArgs } = asked(args);
      const answer = await listAll(ctx, listing, listArgs);
      const freshness = answerFreshness(ctx, answer.freshness, rangeArg(args), answer.end_date);
      // A day not published yet reads as zero: it is listed as answered, but never counted as a low.
      const days = publishedOnly(answer.data, freshness);
      const byCount = [...days].sort((a, b) => a.user_count - b.user_count || (a.date < b.date ? -1 : 1));
      const groups = await activeByGroup(
        ctx,
        args,
        days.map((d) => d.date),
      );
      return {
        start_date: answer.start_date,
        end_date: answer.end_date,
        days: answer.data,
        summary: {
          days: days.length,
          average: mean(days.map((d) => d.user_count)),
          weekday_average: mean(days.filter((d) => !isWeekend(d.date)).map((d) => d.user_count)),
          weekend_average: mean(days.filter((d) => isWeekend(d.date)).map((d) => d.user_count)),
          peak: byCount.at(-1) ?? null,
          low: byCount[0] ?? null,
          weekly_averages: days.length ? fullWeeks(days) : [],
          trend: dauTrend(days),
        },
        ...(groups ? { groups } : {}),
        freshness,
      };
    },
    text(out) {
      const s = out.summary;
      const counted = s.days < out.days.length ? `${s.days} published days` : `${s.days} ${plural(s.days, 'day')}`;
      // Days not published yet are no zeros: with none published, there is no average to give.
      const average = s.average === null ? 'no published day yet' : `avg ${int(Math.round(s.average))}/day`;
      const head = `Daily active users ${out.start_date}..${out.end_date} (${counted}): ${average}`;
      const split =
        s.weekday_average !== null && s.weekend_average !== null
          ? `; weekdays ${int(Math.round(s.weekday_average))}, weekends ${int(Math.round(s.weekend_average))}`
          : '';
      const extremes =
        s.peak && s.low
          ? `; peak ${int(s.peak.user_count)} (${s.peak.date}), low ${int(s.low.user_count)} (${s.low.date})`
          : '';
      const lines = [`${head}${split}${extremes}.`];
      const weeks = s.weekly_averages;
      if (weeks.length > 1)
        lines.push(
          `Full weeks (Mon–Sun) from ${weeks[0]!.week_start}: ${weeks.map((w) => Math.round(w.average)).join(' ')}`,
        );
      else lines.push(out.days.map((d) => `${d.date.slice(5)} ${d.user_count}`).join(', '));
      if (s.trend) lines.push(`Trend: ${trendText(s.trend, weeks.length < 2)}.`);
      if (out.groups)
        lines.push(
          groupsText(out.groups, (v) => {
            const days = Object.values(v).map(Number);
            return `avg ${int(Math.round(days.reduce((a, b) => a + b, 0) / Math.max(1, days.length)))}/day`;
          }),
        );
      lines.push(freshnessLine(out.freshness));
      return lines.join('\n');
    },
  }),
  {
    figures: (o) => [
      {
        name: 'average',
        value: o.summary.average ?? 0,
        kind: 'level',
        exact: exactMean(publishedOnly(o.days, o.freshness)),
      },
      {
        name: 'weekday_average',
        value: o.summary.weekday_average ?? 0,
        kind: 'level',
        exact: exactMean(publishedOnly(o.days, o.freshness).filter((d) => !isWeekend(d.date))),
      },
      { name: 'peak', value: o.summary.peak?.user_count ?? 0, kind: 'level' },
    ],
  },
);
