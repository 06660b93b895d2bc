import { z } from 'zod';
import type { BillingPlan } from '../../contract/enums.js';
import { askedFreshnessSchema, freshnessLine } from '../../format/freshness.js';
import { table, usd } from '../../format/text.js';
import { reconcile } from '../../insights/chargeback-lines.js';
import { tidyDecimal } from '../../domain/numbers.js';
import { getUserBudgetOverrides, planOf } from '../../upstream/endpoints/get-user-budget-overrides.js';
import { formatDay } from '../../util/utc-date.js';
import { READ_ONLY, defineTool } from '../define-tool.js';
import { directoryOut, orgScope } from '../shared/org-groups.js';
import type { ToolContext } from '../types.js';
import { chargebackMonths } from './chargeback-months.js';
import { chargebackCost } from './chargeback-cost.js';
import { foldChargeback, inOrder } from './chargeback-fold.js';
import { costTotals, costRowOf } from './cost-rows.js';

const month = z
  .string()
  .regex(/^\d{4}-\d{2}$/)
  .optional();
const amounts = { billed_amount_usd: z.string(), credits: z.string().optional() };
/** Lines shown in the text; every line is in the structured result. */
const TEXT_LINES = 40;

export const getChargeback = defineTool({
  name: 'get_chargeback',
  toolset: 'cost',
  title: 'Chargeback by cost center or team',
  description:
    "Billed USD (and credits on a credits plan) per cost center, team or directory column per calendar month, each person's cost in their primary group that day; reconciles exactly to the organization's total. Needs a directory. Whole months of complete days; default: the previous one.",
  input: z.strictObject({
    start_month: month.describe('YYYY-MM'),
    end_month: month.describe('YYYY-MM'),
    by: z.string().min(1).max(80).default('cost_center').describe('cost_center, team, team:N or a directory column'),
    breakdown: z.enum(['model', 'product']).optional(),
  }),
  output: z.object({
    start_month: z.string(),
    end_month: z.string(),
    by: z.string(),
    billing_plan: z.enum(['usd', 'credits']).nullable(),
    lines: z.array(
      z.object({
        group: z.string(),
        month: z.string(),
        ...amounts,
        members: z.number().int(),
        breakdown: z.array(z.object({ key: z.string(), ...amounts })).optional(),
      }),
    ),
    organization_total_usd: z.string(),
    difference_usd: z.string().describe('organization total minus the lines: zero when reconciled'),
    folded: z.boolean().describe('groups under --min-group-size folded into their parent'),
    directory: directoryOut,
    freshness: askedFreshnessSchema,
  }),
  annotations: READ_ONLY,
  async run(args, ctx) {
    const days = chargebackMonths(args, ctx.client.days());
    const scope = (await orgScope(ctx, days, { group_by: args.by }))!;
    const by = scope.by!;
    const [plan, { all, listed, whole }] = await Promise.all([billingPlan(ctx), chargebackCost(ctx, scope, by, args)]);
    const { lines, folded } =
      ctx.config.pii === 'pseudonymous' && ctx.org
        ? foldChargeback(all, ctx.org.minGroupSize, (g) => by.kind === 'team' && !g.startsWith('('))
        : { lines: inOrder(all), folded: false };
    const total = costTotals(whole.map(costRowOf)).billed_amount_usd;
    const credits = plan === 'credits';
    return {
      start_month: formatDay(days.start).slice(0, 7),
      end_month: formatDay(days.end).slice(0, 7),
      by: args.by,
      billing_plan: plan ?? null,
      // Amounts as the upstream writes them, alike whether rows or the store's sums gave them.
      lines: lines.map(({ credits: c, breakdown, billed_amount_usd: b, ...l }) => ({
        ...l,
        billed_amount_usd: tidyDecimal(b),
        ...(credits ? { credits: tidyDecimal(c) } : {}),
        ...(breakdown
          ? {
              breakdown: breakdown.map(({ credits: bc, billed_amount_usd: bb, ...k }) => ({
                ...k,
                billed_amount_usd: tidyDecimal(bb),
                ...(credits ? { credits: tidyDecimal(bc) } : {}),
              })),
            }
          : {}),
      })),
      organization_total_usd: total,
      difference_usd: reconcile(lines, total).difference_usd,
      folded,
      directory: {
        source: `${scope.view.source.kind}: ${scope.view.source.name}`,
        basis: scope.view.basis,
        ...(scope.view.problem ? { problem: scope.view.problem } : {}),
      },
      freshness: listed.published,
    };
  },
  text(out) {
    const months = out.start_month === out.end_month ? out.start_month : `${out.start_month}..${out.end_month}`;
    const reconciled = /^-?0(\.0*)?$/.test(out.difference_usd)
      ? 'the lines add up to it exactly'
      : `difference ${usd(out.difference_usd)}`;
    const head = `Chargeback ${months} by ${out.by}: organization total ${usd(out.organization_total_usd)}; ${reconciled}.`;
    const credits = out.billing_plan === 'credits';
    const rows = out.lines
      .slice(0, TEXT_LINES)
      .map((l) => [
        l.month,
        l.group,
        usd(l.billed_amount_usd),
        ...(credits ? [l.credits] : []),
        l.members,
        ...(l.breakdown ? [l.breakdown.map((b) => `${b.key} ${usd(b.billed_amount_usd)}`).join(', ')] : []),
      ]);
    const columns = [
      'month',
      'group',
      'billed',
      ...(credits ? ['credits'] : []),
      'members',
      ...(out.lines[0]?.breakdown ? ['breakdown'] : []),
    ];
    const parts = [head, table(columns, rows)];
    if (out.lines.length > TEXT_LINES)
      parts.push(`…and ${out.lines.length - TEXT_LINES} more lines (structured result).`);
    if (out.folded)
      parts.push(
        'Groups under the minimum group size are folded into their parent team or (small groups), and re-summed.',
      );
    if (out.directory.basis === 'today')
      parts.push(
        "Teams as of today stand for every day (no history store): with a history store, each day's teams are used.",
      );
    if (out.directory.problem) parts.push(`Directory: ${out.directory.problem}`);
    parts.push(freshnessLine(out.freshness));
    return parts.join('\n');
  },
});

/** ANALYTICS_BILLING_PLAN, else what the budget overrides show; unknown: no credits column. */
async function billingPlan(ctx: ToolContext): Promise<BillingPlan | undefined> {
  if (ctx.config.billingPlan) return ctx.config.billingPlan;
  return planOf((await ctx.client.call(getUserBudgetOverrides, {}, ctx.signal)).value);
}
