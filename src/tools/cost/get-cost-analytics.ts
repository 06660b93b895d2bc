import { z } from 'zod';
import { freshnessLine } from '../../format/freshness.js';
import { commonDomain, int, percent, shortId, usd, usdWhole } from '../../format/text.js';
import { compareDecimals } from '../../domain/numbers.js';
import type { RangeArg } from '../../upstream/endpoint.js';
import { costAnalytics } from '../../upstream/endpoints/cost-analytics.js';
import { costOut, costRowOf, costRowOut, costTotals, MONEY, TOKENS } from './cost-rows.js';
import { comparable } from '../shared/comparable.js';
import { costMovers, costQuery, groupKeys, resolvedFilters, type CostFilters } from './cost-query.js';
import { READ_ONLY, defineTool } from '../define-tool.js';
import { listInputs, pageInputs, rangeArg, rangeInputs } from '../shared/inputs.js';
import { listOut, listOutput, listRows } from '../shared/listing.js';
import { sortRows } from '../shared/rows.js';
import { groupsOut, orgInputs } from '../shared/org-groups.js';
import { groupsText } from '../shared/org-groups-text.js';
import { listedCost, splitCostGroups } from './cost-by-team.js';

const strings = z.array(z.string().min(1)).max(1000).optional();

type CostArgs = RangeArg & { group_by?: string[]; granularity: 'total' | 'day'; filters?: CostFilters };
/** What the tool asks the upstream for (filters resolved already): cost over the range, grouped as asked. */
const asked = (args: CostArgs) => ({
  listing: costAnalytics,
  args: { ...rangeArg(args), ...costQuery(args, groupKeys(args.group_by)) },
});

export const getCostAnalytics = comparable(
  defineTool({
    name: 'get_cost_analytics',
    toolset: 'cost',
    title: 'Cost and token analytics',
    description:
      'What usage cost: billed and estimated USD, base cost, surcharge, credits and tokens, by product, model, user, key type or expert, in total or per day; exact sums. ' +
      'Default: the last 7 complete days; 2 years of history.',
    input: z.strictObject({
      ...rangeInputs,
      // Full COST_ANALYTICS_GROUP_BY_* names are accepted too, without spelling them out in tools/list.
      group_by: z
        .array(z.string().min(1).max(80))
        .max(5)
        .optional()
        .describe(
          'product, resource, user, byok_status, expert (or COST_ANALYTICS_GROUP_BY_*), or one of team, team:N, a directory column; several combine',
        ),
      granularity: z.enum(['total', 'day']).default('total'),
      filters: z
        .strictObject({
          user_emails: strings,
          service_account_names: strings,
          product_names: strings,
          resource_names: strings,
          expert_ids: strings,
        })
        .optional(),
      sort_by: z.enum([...MONEY, ...TOKENS, 'date']).default('billed_amount_usd'),
      teams: orgInputs.teams,
      ...listInputs,
      ...pageInputs,
    }),
    output: z.object({
      start_date: z.string(),
      end_date: z.string(),
      group_by: z.array(z.string()),
      granularity: z.enum(['total', 'day']),
      sort_by: z.string(),
      rows: z.array(costRowOut),
      totals: costOut,
      ...groupsOut,
      ...listOut,
    }),
    annotations: READ_ONLY,
    requests: {
      of: asked,
      // Granularity total, as the tool's default.
      warm: {
        cost: {},
        'cost-by-user': { group_by: ['user'] },
        'cost-by-resource': { group_by: ['resource'] },
        'cost-by-product': { group_by: ['product'] },
      },
    },
    async run(args, ctx) {
      const split = splitCostGroups(args.group_by, args.teams);
      const groupBy = groupKeys(split.upstream);
      const { listed, groups } = await listedCost(ctx, args, split, async (keys) => {
        const { listing, args: listArgs } = asked(await resolvedFilters(ctx, { ...args, group_by: keys }));
        return listRows(ctx, listing, listArgs, args);
      });
      // Grouped by team and not by user: no per-person rows.
      const all = (split.org && !groupBy.includes('COST_ANALYTICS_GROUP_BY_USER') ? [] : listed.rows).map(costRowOf);
      const key = (r: (typeof all)[number]) =>
        args.sort_by === 'date' ? Number(r.start_date.replaceAll('-', '')) : String(r.cost[args.sort_by]);
      const sorted = sortRows(
        all,
        key,
        args.order,
        (r) =>
          `${r.start_date}|${r.product ?? ''}|${r.resource ?? ''}|${r.user ?? ''}|${r.byok_status ?? ''}|${r.expert_id ?? ''}`,
      );
      const rows = sorted.slice(0, args.limit);
      return {
        start_date: listed.start,
        end_date: listed.end,
        group_by: groupBy.map((g) => g.replace('COST_ANALYTICS_GROUP_BY_', '').toLowerCase()),
        granularity: args.granularity,
        sort_by: args.sort_by,
        rows,
        totals: costTotals(split.org ? listed.rows.map(costRowOf) : all),
        ...(groups ? { groups } : {}),
        ...listOutput(all, rows, listed),
      };
    },
    text(out) {
      const t = out.totals;
      const domain = commonDomain(out.rows.flatMap((r) => (r.user ? [r.user] : [])));
      const partial = out.truncated || out.next_cursor !== null ? ' Partial: not every page was read.' : '';
      const grouping = out.group_by.length ? ` by ${out.group_by.join('+')}` : '';
      const grouped = out.group_by.length > 0 || out.granularity === 'day';
      // Grouped answers lead with the billed total; the full totals are in the structured result.
      const showEstimate =
        (!grouped || out.group_by.includes('byok_status')) &&
        compareDecimals(t.estimated_customer_cost_usd, t.billed_amount_usd) !== 0;
      const estimate = showEstimate ? `; customer est. ${usd(t.estimated_customer_cost_usd)}` : '';
      const credits = grouped ? '' : `; credits ${t.credits_consumed}`;
      const lines = [
        `Cost ${out.start_date}..${out.end_date}${grouping}${out.granularity === 'day' ? ' per day' : ''}: billed ${usd(t.billed_amount_usd)}${estimate}${credits}.${partial}`,
      ];
      if (grouped) {
        const total = Number(t.billed_amount_usd);
        const label = (r: (typeof out.rows)[number]) =>
          [
            out.granularity === 'day' ? r.start_date : undefined,
            r.product,
            r.resource,
            r.user ? shortId(r.user, domain) : undefined,
            r.byok_status,
            r.expert,
          ]
            .filter(Boolean)
            .join('/') || 'all';
        // Whole dollars and percent for reading; the exact decimals are in the structured result.
        const item = (r: (typeof out.rows)[number]) =>
          `${label(r)} ${usdWhole(r.cost.billed_amount_usd)}${total ? ` ${percent(Number(r.cost.billed_amount_usd), total)}` : ''}`;
        const scope =
          out.returned_rows < out.total_rows
            ? `Top ${out.returned_rows} of ${int(out.total_rows)} by ${out.sort_by}: `
            : out.sort_by === 'billed_amount_usd'
              ? ''
              : `By ${out.sort_by}: `;
        lines.push(`${scope}${domain ? `(emails ${domain}) ` : ''}${out.rows.map(item).join('; ')}`);
      } else {
        lines.push(
          `Tokens: input ${int(t.input_tokens)}, output ${int(t.output_tokens)}, cache read ${int(t.cache_read_tokens)}, cache write ${int(t.cache_write_tokens)}.`,
        );
      }
      if (out.groups) lines.push(groupsText(out.groups, (v) => usd(String(v.billed_amount_usd))));
      if (out.next_cursor) lines.push(`next_cursor: ${out.next_cursor}`);
      lines.push(freshnessLine(out.freshness));
      return lines.join('\n');
    },
  }),
  {
    rules: 'cost',
    figures: (o) =>
      (['billed_amount_usd', 'estimated_customer_cost_usd', 'credits_consumed'] as const).map((name) => ({
        name,
        value: o.totals[name],
        kind: 'sum',
      })),
    movers: costMovers,
  },
);
