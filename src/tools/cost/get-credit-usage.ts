import { z } from 'zod';
import { freshnessLine } from '../../format/freshness.js';
import { commonDomain, count, int, percent, plural, shortId, table } from '../../format/text.js';
import { formatDay } from '../../util/utc-date.js';
import { identityKey } from '../../upstream/listing/merge.js';
import type { RangeArg } from '../../upstream/endpoint.js';
import { creditUsageByUser, type CreditDimensions } from '../../upstream/endpoints/credit-usage-by-user.js';
import { comparable } from '../shared/comparable.js';
import { moverMap } from '../shared/compare.js';
import { READ_ONLY, defineTool } from '../define-tool.js';
import { listInputs, pageInputs, rangeArg, rangeInputs, usersInput } from '../shared/inputs.js';
import { listAsked, listOut, listOutput } from '../shared/listing.js';
import { listAll } from '../../upstream/listing/list-all.js';
import { identityOf, identityOut, sortRows, userMatcher } from '../shared/rows.js';
import { groupsOut, orgInputs } from '../shared/org-groups.js';
import { personGroups } from '../shared/person-groups.js';
import { groupsText } from '../shared/org-groups-text.js';

/** What the tool asks the upstream for: credits over the range, split by the dimensions asked for. */
const asked = (args: RangeArg & CreditDimensions) => ({
  listing: creditUsageByUser,
  args: { ...rangeArg(args), by_date: args.by_date, by_model: args.by_model },
});

export const getCreditUsage = comparable(
  defineTool({
    name: 'get_credit_usage',
    toolset: 'cost',
    title: 'Credit usage by user',
    description:
      'Who consumed the most credits: per person and service account, optionally per day and per model, sorted; totals cover everyone. ' +
      'Refreshed about every 90 minutes; may include today (partial). Default: the 7 days ending yesterday.',
    input: z.strictObject({
      ...rangeInputs,
      by_date: z.boolean().default(false),
      by_model: z.boolean().default(false),
      users: usersInput,
      sort_by: z.enum(['credits_consumed', 'date', 'user']).default('credits_consumed'),
      ...orgInputs,
      ...listInputs,
      ...pageInputs,
    }),
    output: z.object({
      start_date: z.string(),
      end_date: z.string(),
      includes_today: z.boolean().describe("today's figures are partial"),
      rows: z.array(
        z.object({
          ...identityOut,
          date: z.string().optional(),
          model: z.string().optional(),
          credits_consumed: z.number().int(),
        }),
      ),
      totals: z.object({
        credits_consumed: z.number().int(),
        users: z.number().int(),
        by_model: z.record(z.string(), z.number()).optional(),
      }),
      ...groupsOut,
      ...listOut,
    }),
    annotations: READ_ONLY,
    // by_date and by_model off: the per-user totals.
    requests: { of: asked, warm: { 'credit-usage': {} } },
    async run(args, ctx) {
      const listed = await listAsked(ctx, asked, args);
      const { kept: chosen, groups } = await personGroups(
        ctx,
        args,
        listed,
        async (days) =>
          (await listAll(ctx, creditUsageByUser, { days, by_date: args.by_date, by_model: args.by_model })).data,
        (r) => ({ credits_consumed: r.credits_consumed }),
      );
      const all = chosen.map((r) => ({
        ...identityOf(r),
        ...(r.date ? { date: r.date } : {}),
        ...(r.model_name ? { model: r.model_name } : {}),
        credits_consumed: r.credits_consumed,
      }));
      const key = (r: (typeof all)[number]) =>
        args.sort_by === 'credits_consumed'
          ? r.credits_consumed
          : args.sort_by === 'date'
            ? Number((r.date ?? '').replaceAll('-', ''))
            : 0;
      const sorted =
        args.sort_by === 'user'
          ? [...all].sort((a, b) => (a.user < b.user ? -1 : 1) * (args.order === 'asc' ? 1 : -1))
          : sortRows(all, key, args.order, (r) => `${r.user}|${r.date ?? ''}|${r.model ?? ''}`);
      const rows = sorted.slice(0, args.limit);
      const byModel: Record<string, number> = {};
      for (const r of all) if (r.model) byModel[r.model] = (byModel[r.model] ?? 0) + r.credits_consumed;
      return {
        start_date: listed.start,
        end_date: listed.end,
        includes_today: listed.end >= formatDay(ctx.client.today()),
        rows,
        totals: {
          credits_consumed: all.reduce((n, r) => n + r.credits_consumed, 0),
          users: new Set(chosen.map(identityKey)).size,
          ...(args.by_model ? { by_model: byModel } : {}),
        },
        ...(groups ? { groups } : {}),
        ...listOutput(all, rows, listed),
      };
    },
    text(out) {
      const domain = commonDomain(out.rows.map((r) => r.user));
      const total = out.totals.credits_consumed;
      const partial = out.truncated || out.next_cursor !== null ? ' Partial: not every page was read.' : '';
      const today = out.includes_today ? " Today's figures are partial." : '';
      const lines = [
        `Credits ${out.start_date}..${out.end_date}: ${int(total)} consumed by ${int(out.totals.users)} ${plural(out.totals.users, 'user or service account', 'users and service accounts')} (${count(out.total_rows, 'row')}; showing ${out.returned_rows}).${partial}${today}`,
      ];
      if (out.totals.by_model) {
        const models = Object.entries(out.totals.by_model).sort((a, b) => b[1] - a[1]);
        lines.push(`By model: ${models.map(([m, c]) => `${m} ${int(c)} (${percent(c, total)})`).join(', ')}.`);
      }
      if (out.rows.length) {
        const hasDate = out.rows.some((r) => r.date);
        const hasModel = out.rows.some((r) => r.model);
        const columns = [
          `user${domain ? ` (${domain})` : ''}`,
          ...(hasDate ? ['date'] : []),
          ...(hasModel ? ['model'] : []),
          'credits',
          'share',
        ];
        lines.push(
          table(
            columns,
            out.rows.map((r) => [
              shortId(r.user, domain) + (r.kind === 'service_account' ? ' (sa)' : ''),
              ...(hasDate ? [r.date] : []),
              ...(hasModel ? [r.model] : []),
              int(r.credits_consumed),
              percent(r.credits_consumed, total),
            ]),
          ),
        );
      }
      if (out.groups) lines.push(groupsText(out.groups, (v) => `${int(Number(v.credits_consumed))} credits`));
      if (out.next_cursor) lines.push(`next_cursor: ${out.next_cursor}`);
      lines.push(freshnessLine(out.freshness));
      return lines.join('\n');
    },
  }),
  {
    rules: 'credit',
    figures: (o) => [
      { name: 'credits_consumed', value: o.totals.credits_consumed, kind: 'sum' },
      { name: 'users', value: o.totals.users, kind: 'distinct' },
    ],
    movers: {
      by: () => 'credits_consumed',
      async read(ctx, args, period) {
        const match = await userMatcher(args.users, ctx);
        const rows = (await listAll(ctx, creditUsageByUser, { days: period })).data.filter((r) => !match || match(r));
        return moverMap(rows, (r) => r.credits_consumed);
      },
    },
  },
);
