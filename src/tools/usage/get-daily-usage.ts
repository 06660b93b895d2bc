import { z } from 'zod';
import { askedFreshnessSchema, freshnessLine } from '../../format/freshness.js';
import { int, plural, table } from '../../format/text.js';
import { dailyUsage } from '../../upstream/endpoints/daily-usage.js';
import { comparable } from '../shared/comparable.js';
import { answerFreshness } from '../shared/complete-days.js';
import { READ_ONLY, defineTool } from '../define-tool.js';
import { listAll } from '../../upstream/listing/list-all.js';
import { metricsInput, rangeArg, rangeInputs, rangeRequest } from '../shared/inputs.js';
import { DEFAULT_METRICS, metricValues, pickMetrics, sumMetrics } from '../shared/metrics.js';

/** What the tool asks the upstream for: the daily series over the range (every metric; `metrics` picks). */
const asked = rangeRequest(dailyUsage);

export const getDailyUsage = comparable(
  defineTool({
    name: 'get_daily_usage',
    toolset: 'usage',
    title: 'Daily usage totals',
    description:
      'Organization-wide usage per UTC day (messages, tool calls, lines of code, completions, agent activity; choose with `metrics`) and totals. ' +
      'Default: the last 7 complete days; 2 years of history.',
    input: z.strictObject({ ...rangeInputs, metrics: metricsInput }),
    output: z.object({
      start_date: z.string(),
      end_date: z.string(),
      metrics: z.array(z.string()),
      days: z.array(z.object({ date: z.string(), values: metricValues })),
      totals: metricValues,
      days_with_activity: z.number().int(),
      freshness: askedFreshnessSchema,
    }),
    annotations: READ_ONLY,
    requests: { of: asked, warm: { 'daily-usage': {} } },
    async run(args, ctx) {
      const { listing, args: listArgs } = asked(args);
      const answer = await listAll(ctx, listing, listArgs);
      const fields = args.metrics ?? DEFAULT_METRICS;
      const days = answer.data.map((d) => ({ date: d.date, values: pickMetrics(d.metrics, fields) }));
      return {
        start_date: answer.start_date,
        end_date: answer.end_date,
        metrics: fields,
        days,
        totals: sumMetrics(days, fields),
        days_with_activity: days.length,
        freshness: answerFreshness(ctx, answer.freshness, rangeArg(args), answer.end_date),
      };
    },
    text(out) {
      // Zero-valued noise is left out: a metric that is zero on every day gets no column.
      const shown = out.metrics.filter((m) => out.totals[m] !== 0);
      const lines = [
        `Daily usage ${out.start_date}..${out.end_date}, ${out.days_with_activity} ${plural(out.days_with_activity, 'day')} with activity. Totals: ${shown.map((m) => `${m} ${int(out.totals[m]!)}`).join(', ') || 'no activity'}.`,
      ];
      const zero = out.metrics.filter((m) => out.totals[m] === 0);
      if (zero.length) lines.push(`All zero: ${zero.join(', ')}.`);
      if (out.days.length && shown.length)
        lines.push(
          table(
            ['date', ...shown],
            out.days.map((d) => [d.date, ...shown.map((m) => d.values[m])]),
          ),
        );
      lines.push(freshnessLine(out.freshness));
      return lines.join('\n');
    },
  }),
  { figures: (o) => o.metrics.map((m) => ({ name: m, value: o.totals[m]!, kind: 'sum' })) },
);
