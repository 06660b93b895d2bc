import { z } from 'zod';
import { commonDomain, count, int, shortId } from '../../format/text.js';
import { getUserBudgetOverrides } from '../../upstream/endpoints/get-user-budget-overrides.js';
import { fullResource, periodInput, resourceInput, shortResource } from '../../domain/budget-resources.js';
import { READ_ONLY, defineTool } from '../define-tool.js';
import { assertServiceAccountName } from '../../privacy/identity-format.js';
import { listInputs } from '../shared/inputs.js';
import { tableOut } from '../shared/listing.js';
import { identityOf, identityOut } from '../shared/rows.js';

export const getBudgetOverrides = defineTool({
  name: 'get_budget_overrides',
  toolset: 'budgets',
  title: 'Budget overrides',
  description:
    "Who has a custom monthly budget (an override of the default per-user limit) and its limit. Read in real time, never cached; only the billing plan's resource. " +
    'Unknown emails or service accounts are an error that lists them.',
  input: z.strictObject({
    user_emails: z.array(z.string().min(1)).max(1000).optional(),
    service_account_names: z.array(z.string().min(1)).max(1000).optional(),
    resource: resourceInput.optional().describe('default: all'),
    period: periodInput.optional(),
    sort_by: z.enum(['user', 'limit']).default('user'),
    ...listInputs,
    order: listInputs.order.default('asc'),
  }),
  output: z.object({
    rows: z.array(
      z.object({
        ...identityOut,
        resource: z.string(),
        period: z.string(),
        limit: z.string().describe('"" when cleared'),
      }),
    ),
    counts: z.object({
      users: z.number().int(),
      service_accounts: z.number().int(),
      cleared: z.number().int(),
      by_limit: z.record(z.string(), z.number().int()),
    }),
    ...tableOut,
    read_at: z.string(),
  }),
  annotations: READ_ONLY,
  async run(args, ctx) {
    const emails = args.user_emails ? await Promise.all(args.user_emails.map((e) => ctx.resolveEmail(e))) : undefined;
    const { value, freshness } = await ctx.client.call(
      getUserBudgetOverrides,
      {
        user_emails: emails,
        service_account_names: args.service_account_names?.map(assertServiceAccountName),
        resource: args.resource && fullResource(args.resource),
        period: args.period && 'BUDGET_PERIOD_MONTHLY',
      },
      ctx.signal,
    );
    const all = value.overrides.map((o) => ({
      ...identityOf(o),
      resource: shortResource(o.resource),
      period: o.period === 'BUDGET_PERIOD_MONTHLY' ? 'monthly' : o.period,
      limit: o.config.limit,
    }));
    const sign = args.order === 'asc' ? 1 : -1;
    const byLimit = (a: string, b: string) => a.length - b.length || (a < b ? -1 : a > b ? 1 : 0);
    const sorted = [...all].sort(
      (a, b) =>
        sign * (args.sort_by === 'limit' ? byLimit(a.limit, b.limit) : a.user < b.user ? -1 : a.user > b.user ? 1 : 0),
    );
    const rows = sorted.slice(0, args.limit);
    const counts: Record<string, number> = {};
    for (const o of all) if (o.limit !== '') counts[o.limit] = (counts[o.limit] ?? 0) + 1;
    return {
      rows,
      counts: {
        users: all.filter((o) => o.kind === 'user').length,
        service_accounts: all.filter((o) => o.kind === 'service_account').length,
        cleared: all.filter((o) => o.limit === '').length,
        by_limit: counts,
      },
      total_rows: all.length,
      returned_rows: rows.length,
      truncated: false,
      read_at: freshness.fetched_at,
    };
  },
  text(out) {
    const c = out.counts;
    const resources = [...new Set(out.rows.map((r) => r.resource))].join(', ');
    const lines = [
      `${count(out.total_rows, 'budget override')}${resources ? ` (${resources}, monthly)` : ''}: ${count(c.users, 'user')}, ${count(c.service_accounts, 'service account')}${c.cleared ? `, ${c.cleared} cleared` : ''}. Read live at ${out.read_at.slice(0, 16).replace('T', ' ')} UTC.`,
    ];
    const limits = Object.entries(c.by_limit).sort((a, b) => b[0].length - a[0].length || (b[0] < a[0] ? -1 : 1));
    if (limits.length) lines.push(`Limits: ${limits.map(([l, n]) => `${int(l)}×${n}`).join(', ')}.`);
    if (out.rows.length) {
      const domain = commonDomain(out.rows.map((r) => r.user));
      const items = out.rows.map(
        (r) =>
          `${shortId(r.user, domain)}${r.kind === 'service_account' ? ' (sa)' : ''} ${r.limit === '' ? 'cleared' : int(r.limit)}`,
      );
      lines.push(`Showing ${out.returned_rows}${domain ? ` (emails ${domain})` : ''}: ${items.join(', ')}`);
    }
    return lines.join('\n');
  },
});
