import { assertServiceAccountName } from './identity-format.js';
import { z } from 'zod';
import { GROUP_BY_KEYS, type GroupByKey } from '../contract/enums.js';
import { freshnessLine, freshnessSchema } from '../format/freshness.js';
import { commonDomain, int, percent, shortId, usd, usdWhole } from '../format/text.js';
import { addCostMetrics } from '../upstream/merge.js';
import { compareDecimals } from '../upstream/numbers.js';
import type { CostAnalytics, CostPoint } from '../upstream/schemas.js';
import { listing, listInputs, pageInputs, pagingOut, rangeArg, rangeInputs, sortRows, tableMeta, tableOut } from './common.js';
import { READ_ONLY, defineTool } from './types.js';

const SHORT = { product: 'COST_ANALYTICS_GROUP_BY_PRODUCT', resource: 'COST_ANALYTICS_GROUP_BY_RESOURCE', user: 'COST_ANALYTICS_GROUP_BY_USER', byok_status: 'COST_ANALYTICS_GROUP_BY_BYOK_STATUS', expert: 'COST_ANALYTICS_GROUP_BY_EXPERT' } as const;
const MONEY = ['billed_amount_usd', 'estimated_customer_cost_usd', 'base_cost_usd', 'surcharge_usd', 'credits_consumed'] as const;
const TOKENS = ['input_tokens', 'output_tokens', 'cache_read_tokens', 'cache_write_tokens'] as const;
/** Token counts: a number, or a decimal string above 2^53-1. */
const count = z.union([z.number(), z.string()]);
// Registered with an id, so the rows and the totals share one definition in the output schema.
const costOut = z
  .object({ ...Object.fromEntries(MONEY.map((k) => [k, z.string()])), ...Object.fromEntries(TOKENS.map((k) => [k, count])) } as Record<(typeof MONEY)[number], z.ZodString> & Record<(typeof TOKENS)[number], typeof count>)
  .meta({ id: 'CostMetrics' });
const strings = z.array(z.string().min(1)).max(1000).optional();

export const getCostAnalytics = defineTool({
  name: 'get_cost_analytics',
  title: 'Cost and token analytics',
  description:
    'What usage cost: billed and estimated USD, base cost, surcharge, credits and tokens, by product, model, user, key type or expert, in total or per day; exact sums. ' +
    'Default: the 7 days ending yesterday (a day arrives ~02:00 UTC the next day); 2 years of history; ranges over 90 days are split.',
  input: z.strictObject({
    ...rangeInputs,
    // Full COST_ANALYTICS_GROUP_BY_* names are accepted too, without spelling them out in tools/list.
    group_by: z
      .array(z.string().refine((g) => g in SHORT || (GROUP_BY_KEYS as readonly string[]).includes(g), { message: `use ${Object.keys(SHORT).join(', ')}` }))
      .max(5)
      .optional()
      .describe('product, resource, user, byok_status, expert (or the full COST_ANALYTICS_GROUP_BY_* names); several combine'),
    granularity: z.enum(['total', 'day']).default('total'),
    filters: z.strictObject({ user_emails: strings, service_account_names: strings, product_names: strings, resource_names: strings, expert_ids: strings }).optional(),
    sort_by: z.enum([...MONEY, ...TOKENS, 'date']).default('billed_amount_usd'),
    ...listInputs,
    ...pageInputs,
  }),
  output: z.object({
    start_date: z.string(),
    end_date: z.string(),
    group_by: z.array(z.string()),
    granularity: z.enum(['total', 'day']),
    sort_by: z.string(),
    rows: z.array(
      z.object({
        start_date: z.string(),
        end_date: z.string(),
        product: z.string().optional(),
        resource: z.string().optional(),
        resource_type: z.string().optional(),
        user: z.string().optional(),
        user_type: z.string().optional(),
        byok_status: z.string().optional(),
        expert_id: z.string().optional(),
        expert: z.string().optional(),
        cost: costOut,
      }),
    ),
    totals: costOut,
    ...tableOut,
    ...pagingOut,
    freshness: freshnessSchema,
  }),
  annotations: READ_ONLY,
  async run(args, ctx) {
    const groupBy = [...new Set((args.group_by ?? []).map((g) => (g in SHORT ? SHORT[g as keyof typeof SHORT] : (g as GroupByKey))))];
    const f = args.filters ?? {};
    const filters = {
      ...f,
      ...(f.user_emails ? { user_emails: await Promise.all(f.user_emails.map((e) => ctx.resolveEmail(e))) } : {}),
      ...(f.service_account_names ? { service_account_names: f.service_account_names.map(assertServiceAccountName) } : {}),
    };
    const query = { group_by_keys: groupBy, granularity: args.granularity === 'day' ? ('COST_ANALYTICS_TIME_GRANULARITY_DAY' as const) : ('COST_ANALYTICS_TIME_GRANULARITY_TOTAL' as const), filters };
    const meta = await listing<CostAnalytics, CostPoint>(
      args,
      { page: () => ctx.client.rawPage('cost-analytics', { range: rangeArg(args), cost: query, cursor: args.cursor, page_size: args.page_size }, ctx.signal), items: (v) => v.data_points, span: (v) => [v.metadata.effective_start_date, v.metadata.effective_end_date] },
      () => ctx.client.costAnalytics(rangeArg(args), query, { signal: ctx.signal, onProgress: ctx.progress }),
    );
    const points = meta.items;
    const all = points.map((p) => {
      const g = p.group_by_values;
      const u = g.user_info;
      return {
        start_date: p.start_date,
        end_date: p.end_date,
        ...(g.product_display_name !== undefined ? { product: g.product_display_name } : {}),
        ...(g.resource_display_name !== undefined ? { resource: g.resource_display_name, resource_type: g.resource_type?.replace('COST_ANALYTICS_RESOURCE_TYPE_', '').toLowerCase() } : {}),
        ...(u ? { user: u.user_email ?? u.service_account_name ?? u.bot_name ?? '(deleted or unresolved account)', user_type: u.user_type.replace('COST_ANALYTICS_USER_TYPE_', '').toLowerCase() } : {}),
        ...(g.byok_status !== undefined ? { byok_status: g.byok_status === 'COST_ANALYTICS_BYOK_STATUS_BYOK' ? 'byok' : 'non_byok' } : {}),
        ...(g.expert_info ? { expert_id: g.expert_info.expert_id ?? '(none)', expert: g.expert_info.name ?? '(no expert)' } : {}),
        cost: p.cost_metrics,
      };
    });
    const key = (r: (typeof all)[number]) => (args.sort_by === 'date' ? Number(r.start_date.replaceAll('-', '')) : String(r.cost[args.sort_by]));
    const sorted = sortRows(all, key, args.order, (r) => `${r.start_date}|${r.product ?? ''}|${r.resource ?? ''}|${r.user ?? ''}|${r.byok_status ?? ''}|${r.expert_id ?? ''}`);
    const rows = sorted.slice(0, args.limit);
    const zero = { ...Object.fromEntries(MONEY.map((k) => [k, '0'])), ...Object.fromEntries(TOKENS.map((k) => [k, 0])) } as CostPoint['cost_metrics'];
    return {
      start_date: meta.start,
      end_date: meta.end,
      group_by: groupBy.map((g) => g.replace('COST_ANALYTICS_GROUP_BY_', '').toLowerCase()),
      granularity: args.granularity,
      sort_by: args.sort_by,
      rows,
      totals: all.reduce((t, r) => addCostMetrics(t, r.cost), zero),
      ...tableMeta(all, rows, meta),
    };
  },
  text(out) {
    const t = out.totals;
    const domain = commonDomain(out.rows.flatMap((r) => (r.user ? [r.user] : [])));
    const partial = out.truncated || out.next_cursor !== null ? ' Partial: not every page was read.' : '';
    const grouping = out.group_by.length ? ` by ${out.group_by.join('+')}` : '';
    const grouped = out.group_by.length > 0 || out.granularity === 'day';
    // Grouped answers lead with the billed total; the full totals are in the structured result.
    const showEstimate = (!grouped || out.group_by.includes('byok_status')) && compareDecimals(t.estimated_customer_cost_usd, t.billed_amount_usd) !== 0;
    const estimate = showEstimate ? `; customer est. ${usd(t.estimated_customer_cost_usd)}` : '';
    const credits = grouped ? '' : `; credits ${t.credits_consumed}`;
    const lines = [`Cost ${out.start_date}..${out.end_date}${grouping}${out.granularity === 'day' ? ' per day' : ''}: billed ${usd(t.billed_amount_usd)}${estimate}${credits}.${partial}`];
    if (grouped) {
      const total = Number(t.billed_amount_usd);
      const label = (r: (typeof out.rows)[number]) =>
        [out.granularity === 'day' ? r.start_date : undefined, r.product, r.resource, r.user ? shortId(r.user, domain) : undefined, r.byok_status, r.expert].filter(Boolean).join('/') || 'all';
      // Whole dollars and percent for reading; the exact decimals are in the structured result.
      const item = (r: (typeof out.rows)[number]) => `${label(r)} ${usdWhole(r.cost.billed_amount_usd)}${total ? ` ${percent(Number(r.cost.billed_amount_usd), total)}` : ''}`;
      const scope = out.returned_rows < out.total_rows ? `Top ${out.returned_rows} of ${int(out.total_rows)} by ${out.sort_by}: ` : out.sort_by === 'billed_amount_usd' ? '' : `By ${out.sort_by}: `;
      lines.push(`${scope}${domain ? `(emails ${domain}) ` : ''}${out.rows.map(item).join('; ')}`);
    } else {
      lines.push(`Tokens: input ${int(t.input_tokens)}, output ${int(t.output_tokens)}, cache read ${int(t.cache_read_tokens)}, cache write ${int(t.cache_write_tokens)}.`);
    }
    if (out.next_cursor) lines.push(`next_cursor: ${out.next_cursor}`);
    lines.push(freshnessLine(out.freshness));
    return lines.join('\n');
  },
});
