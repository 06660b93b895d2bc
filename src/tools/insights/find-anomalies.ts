import { anomaliesOf } from '../../insights/anomalies-of.js';
import { z } from 'zod';
import { combineFreshness } from '../../domain/freshness.js';
import { askedFreshnessSchema, freshnessLine } from '../../format/freshness.js';
import { commonDomain, count, shortId, table } from '../../format/text.js';
import { formatDay } from '../../util/utc-date.js';
import { READ_ONLY, defineTool } from '../define-tool.js';
import { answerFreshness, completePeriod } from '../shared/complete-days.js';
import { listInputs, rangeInputs } from '../shared/inputs.js';
import { answerWithinMs } from '../../upstream/listing/list-all.js';
import { GROUP_KINDS, KINDS, METHOD } from '../../insights/anomaly-find.js';
import { BASELINE_DAYS } from '../../insights/anomaly-rules.js';
import { groupsOut, orgInputs, orgScope } from '../shared/org-groups.js';
import { groupFigures } from '../shared/group-figures.js';
import { groupsText } from '../shared/org-groups-text.js';
import { groupLens } from '../shared/group-lens.js';

const amount = z.union([z.number(), z.string()]);

export const anomalyOut = z.object({
  kind: z.enum([...KINDS, ...GROUP_KINDS]),
  group: z.string().optional(),
  user_email: z.string().optional(),
  service_account_name: z.string().optional(),
  /** 'organization', or the model or resource name. */
  scope: z.string().optional(),
  date: z.string(),
  value: amount,
  baseline: amount,
  ratio: z.number().nullable(),
});

export const findAnomaliesTool = defineTool({
  name: 'find_anomalies',
  toolset: 'insights',
  title: 'Anomalies',
  description:
    "What is unusual over complete days: an identity's credits or cost far above its 28-day median, organization days off its weekday pattern, a model or resource that appears or jumps; ranked by excess. Needs the history store (`sync`); live: credits only, 90 days at most.",
  input: z.strictObject({ ...rangeInputs, limit: listInputs.limit, ...orgInputs }),
  output: z.object({
    start_date: z.string(),
    end_date: z.string(),
    anomalies: z.array(anomalyOut),
    count: z.number().int(),
    /** Anomalies by kind, over all of them. */
    totals: z.record(z.string(), z.number().int()),
    returned_rows: z.number().int(),
    left_out: z.object({ start_date: z.string(), end_date: z.string() }).optional(),
    needs: z.string().optional(),
    method: z.string(),
    covers: z.string().optional(),
    ...groupsOut,
    freshness: askedFreshnessSchema,
  }),
  annotations: READ_ONLY,
  async run(args, ctx) {
    const { period, covers } = completePeriod(ctx, args, 'last_30_days');
    // Teams of each day over the baselines too: a group's day is judged against its own 4 weeks before.
    const scope = await orgScope(ctx, { start: period.start - BASELINE_DAYS, end: period.end }, args);
    const lens = scope && groupLens(ctx, scope);
    const found = await anomaliesOf(ctx, period, false, Date.now() + answerWithinMs(ctx.config), lens);
    const groups =
      scope &&
      groupFigures(
        ctx,
        { ...scope, by: scope.by ?? { kind: 'team', depth: 1 } },
        found.rows ?? [],
        (r) => r.id,
        (r) => r.values,
      );
    const totals: Record<string, number> = {};
    for (const a of found.anomalies) totals[a.kind] = (totals[a.kind] ?? 0) + 1;
    const shown = found.anomalies.slice(0, args.limit);
    return {
      start_date: formatDay(period.start),
      end_date: formatDay(period.end),
      anomalies: shown,
      count: found.anomalies.length,
      totals,
      returned_rows: shown.length,
      ...(found.left_out ? { left_out: found.left_out } : {}),
      ...(found.needs ? { needs: found.needs } : {}),
      method: METHOD,
      ...(covers ? { covers } : {}),
      ...(groups ? { groups } : {}),
      freshness: answerFreshness(ctx, combineFreshness(found.freshness), args, formatDay(period.end)),
    };
  },
  text(out) {
    const kinds = Object.entries(out.totals).map(([k, n]) => `${k} ${n}`);
    const lines = [
      `${count(out.count, 'anomaly', 'anomalies')} from ${out.start_date} to ${out.end_date}${kinds.length ? ` (${kinds.join(', ')})` : ''}.`,
    ];
    if (out.anomalies.length) {
      lines.push(anomalyTable(out.anomalies));
      if (out.returned_rows < out.count) lines.push(`Showing ${out.returned_rows} of ${out.count}.`);
    }
    if (out.needs) lines.push(out.needs);
    if (out.covers) lines.push(out.covers);
    if (out.groups)
      lines.push(
        groupsText(out.groups, (v) =>
          [`credits ${v.credits ?? 0}`, v.billed_usd === undefined ? '' : `billed $${v.billed_usd}`]
            .filter(Boolean)
            .join(', '),
        ),
      );
    lines.push(`Method: ${out.method}`, freshnessLine(out.freshness));
    return lines.join('\n');
  },
});

/** Anomalies as a text table: who or what, the day, the value against its baseline. */
export function anomalyTable(anomalies: ReadonlyArray<z.output<typeof anomalyOut>>): string {
  const domain = commonDomain(anomalies.flatMap((a) => (a.user_email ? [a.user_email] : [])));
  const who = (a: z.output<typeof anomalyOut>) =>
    a.group !== undefined
      ? a.group
      : a.user_email
        ? shortId(a.user_email, domain)
        : a.service_account_name
          ? `${a.service_account_name} (sa)`
          : a.scope;
  return table(
    ['kind', `who${domain ? ` (${domain})` : ''}`, 'date', 'value', 'baseline', 'ratio'],
    anomalies.map((a) => [a.kind, who(a) ?? '', a.date, a.value, a.baseline, a.ratio ?? 'new']),
  );
}
