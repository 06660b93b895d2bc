import { z } from 'zod';
import { freshnessLine, freshnessOut, freshnessSchema } from '../../format/freshness.js';
import { commonDomain, int, shortId, table } from '../../format/text.js';
import { combineFreshness } from '../../domain/freshness.js';
import { BUDGET_STATUSES } from './budget-projection.js';
import { budgetStatuses, budgetUserRowOut, monthToDateOut } from './budget-status.js';
import { READ_ONLY, defineTool } from '../define-tool.js';
import { listInputs, usersInput } from '../shared/inputs.js';
import { tableOut } from '../shared/listing.js';
import { identityNamed } from '../shared/rows.js';
import { groupsOut, orgInputs } from '../shared/org-groups.js';
import { groupsText } from '../shared/org-groups-text.js';
import { budgetsByTeam } from './budget-status-by-team.js';

export const getBudgetStatus = defineTool({
  name: 'get_budget_status',
  toolset: 'budgets',
  title: 'Budget status this month',
  description:
    'Who is about to hit their budget: each override (or the named people) with month-to-date use against the limit, ' +
    'end-of-month projection, the day the limit falls, and status, riskiest first. ' +
    'Overrides read in real time; credits refresh about every 90 minutes, cost daily.',
  input: z.strictObject({ users: usersInput, limit: listInputs.limit, ...orgInputs }),
  output: z.object({
    plan: z.enum(['credits', 'usd']).nullable(),
    month_to_date: monthToDateOut,
    projection: z.string(),
    rows: z.array(budgetUserRowOut),
    counts: z.record(z.enum(BUDGET_STATUSES), z.number().int()),
    ...tableOut,
    freshness: freshnessSchema,
    ...groupsOut,
  }),
  annotations: READ_ONLY,
  async run(args, ctx) {
    const named = await Promise.all((args.users ?? []).map((user) => identityNamed(ctx, user)));
    const status = await budgetStatuses(ctx, named);
    const { kept, groups } = await budgetsByTeam(ctx, status.rows, args);
    const counts = Object.fromEntries(BUDGET_STATUSES.map((s) => [s, kept.filter((r) => r.status === s).length]));
    const rows = kept.slice(0, args.limit);
    return {
      plan: status.plan,
      month_to_date: status.month_to_date,
      projection: status.projection,
      rows,
      counts: counts as Record<(typeof BUDGET_STATUSES)[number], number>,
      total_rows: kept.length,
      returned_rows: rows.length,
      truncated: false,
      freshness: freshnessOut(combineFreshness(status.freshness), status.month_to_date.through),
      ...(groups ? { groups } : {}),
    };
  },
  text(out) {
    const m = out.month_to_date;
    const counts = BUDGET_STATUSES.filter((s) => out.counts[s]).map((s) => `${out.counts[s]} ${s.replace('_', ' ')}`);
    const lines = [
      `Budgets${out.plan ? ` (${out.plan}, monthly)` : ''}, month to date ${m.start}..${m.through}${m.includes_today ? ' (today partial)' : ''}: ` +
        `${counts.join(', ') || 'no overrides'}${out.returned_rows < out.total_rows ? `; showing ${out.returned_rows} of ${out.total_rows}` : ''}.`,
      `${m.covers} ${out.projection}`,
    ];
    if (out.rows.length) {
      const domain = commonDomain(out.rows.map((r) => r.user));
      lines.push(
        table(
          [`user${domain ? ` (${domain})` : ''}`, 'status', 'used', 'limit', '%', 'projected', 'limit reached'],
          out.rows.map((r) => [
            shortId(r.user, domain) + (r.kind === 'service_account' ? ' (sa)' : ''),
            r.status,
            r.used === null ? null : int(r.used),
            r.limit === null ? null : r.limit === '' ? 'cleared' : int(r.limit),
            r.percent_used,
            r.projected === null ? null : int(r.projected),
            r.limit_day,
          ]),
        ),
      );
    }
    if (out.groups) lines.push(groupsText(out.groups, (v) => `used ${int(v.used ?? 0)} of ${int(v.limit ?? 0)}`));
    lines.push(freshnessLine(out.freshness));
    return lines.join('\n');
  },
});
