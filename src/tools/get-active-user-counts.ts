import { z } from 'zod';
import { freshnessLine, freshnessOut, freshnessSchema } from '../format/freshness.js';
import { int, percent } from '../format/text.js';
import { dauCount } from '../upstream/endpoints/dau-count.js';
import { READ_ONLY, defineTool } from './define-tool.js';
import { listAll } from './listing.js';
import { rangeArg, rangeInputs } from './inputs.js';

const day = z.object({ date: z.string(), user_count: z.number().int() });

export const getActiveUserCounts = defineTool({
  name: 'get_active_user_counts',
  title: 'Daily active user counts',
  description:
    'Daily active users (people and service accounts per UTC day) with average, weekday/weekend split, peak and weekly trend. ' +
    'Default: the 7 days ending yesterday. A day arrives ~02:00 UTC the next day; 2 years of history; ranges over 90 days are split.',
  input: z.strictObject(rangeInputs),
  output: z.object({
    start_date: z.string(),
    end_date: z.string(),
    days: z.array(day),
    summary: z.object({
      days: z.number().int(),
      average: z.number(),
      weekday_average: z.number().nullable(),
      weekend_average: z.number().nullable(),
      peak: day.nullable(),
      low: day.nullable(),
      weekly_averages: z.array(z.object({ week_start: z.string(), average: z.number() })),
    }),
    freshness: freshnessSchema,
  }),
  annotations: READ_ONLY,
  async run(args, ctx) {
    const answer = await listAll(ctx, dauCount, rangeArg(args));
    const days = answer.data;
    const mean = (xs: number[]) =>
      xs.length ? Math.round((xs.reduce((a, b) => a + b, 0) / xs.length) * 10) / 10 : null;
    const weekend = (d: string) => [0, 6].includes(new Date(`${d}T00:00:00Z`).getUTCDay());
    const byCount = [...days].sort((a, b) => a.user_count - b.user_count || (a.date < b.date ? -1 : 1));
    const weeks = [];
    for (let i = 0; i < days.length; i += 7) {
      const week = days.slice(i, i + 7);
      weeks.push({ week_start: week[0]!.date, average: mean(week.map((d) => d.user_count)) ?? 0 });
    }
    return {
      start_date: answer.start_date,
      end_date: answer.end_date,
      days,
      summary: {
        days: days.length,
        average: mean(days.map((d) => d.user_count)) ?? 0,
        weekday_average: mean(days.filter((d) => !weekend(d.date)).map((d) => d.user_count)),
        weekend_average: mean(days.filter((d) => weekend(d.date)).map((d) => d.user_count)),
        peak: byCount.at(-1) ?? null,
        low: byCount[0] ?? null,
        weekly_averages: weeks,
      },
      freshness: freshnessOut(answer.freshness, answer.end_date),
    };
  },
  text(out) {
    const s = out.summary;
    const head = `Daily active users ${out.start_date}..${out.end_date} (${s.days} days): avg ${int(Math.round(s.average))}/day`;
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
    if (weeks.length > 1) {
      const first = weeks[0]!.average;
      const last = weeks.at(-1)!.average;
      const change =
        first === 0
          ? ''
          : ` (${last >= first ? '+' : '-'}${percent(Math.abs(last - first), first)} first to last week)`;
      lines.push(
        `Weekly avg from ${weeks[0]!.week_start}: ${weeks.map((w) => Math.round(w.average)).join(' ')}${change}`,
      );
    } else {
      lines.push(out.days.map((d) => `${d.date.slice(5)} ${d.user_count}`).join(', '));
    }
    lines.push(freshnessLine(out.freshness));
    return lines.join('\n');
  },
});
