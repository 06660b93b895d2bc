import { z } from 'zod';
import { freshnessLine, freshnessOut, freshnessSchema } from '../format/freshness.js';
import { commonDomain, int, shortId } from '../format/text.js';
import type { Dau } from '../upstream/schemas.js';
import { date, identityOf, identityOut, listing, listInputs, pageInputs, pagingOut, tableOut, userMatcher, usersInput } from './common.js';
import { READ_ONLY, defineTool } from './types.js';

export const listActiveUsers = defineTool({
  name: 'list_active_users',
  title: 'Active users on a day',
  description:
    'Who was active on one UTC day, alphabetically; `users` checks specific people. Default: yesterday (a day arrives ~02:00 UTC the next day); 2 years of history.',
  input: z.strictObject({ date: date.optional().describe('YYYY-MM-DD (UTC); default yesterday'), users: usersInput, ...listInputs, order: listInputs.order.default('asc'), ...pageInputs }),
  output: z.object({
    date: z.string(),
    active: z.number().int().describe('identities active that day (this page only in raw-page mode)'),
    users_active: z.number().int(),
    service_accounts_active: z.number().int(),
    rows: z.array(z.object(identityOut)),
    ...tableOut,
    ...pagingOut,
    freshness: freshnessSchema,
  }),
  annotations: READ_ONLY,
  async run(args, ctx) {
    // Checked before any page is fetched: a malformed name fails fast.
    const match = await userMatcher(args.users, ctx);
    const { items: all, start: day, truncated, next, freshness } = await listing<Dau, Dau['users'][number]>(
      args,
      { page: () => ctx.client.rawPage('dau', { date: args.date, cursor: args.cursor, page_size: args.page_size }, ctx.signal), items: (v) => v.users, span: (v) => [v.metadata.effective_date, v.metadata.effective_date] },
      () => ctx.client.activeUsers(args.date, { signal: ctx.signal, onProgress: ctx.progress }),
    );
    const matching = (match ? all.filter(match) : all).map(identityOf).sort((a, b) => (a.user < b.user ? -1 : 1) * (args.order === 'asc' ? 1 : -1));
    const accounts = all.filter((u) => u.service_account_name !== undefined).length;
    const rows = matching.slice(0, args.limit);
    return {
      date: day,
      active: all.length,
      users_active: all.length - accounts,
      service_accounts_active: accounts,
      rows,
      total_rows: matching.length,
      returned_rows: rows.length,
      truncated,
      next_cursor: next,
      freshness: freshnessOut(freshness, day),
    };
  },
  text(out) {
    const domain = commonDomain(out.rows.map((r) => r.user));
    const scope = out.next_cursor !== null || out.truncated ? ' (partial: more pages exist)' : '';
    const lines = [`Active on ${out.date}: ${int(out.active)} (${int(out.users_active)} users, ${int(out.service_accounts_active)} service accounts)${scope}.`];
    if (out.total_rows !== out.active) lines.push(`Matching your filter: ${out.total_rows}.`);
    if (out.rows.length > 0) {
      const shown = out.rows.map((r) => shortId(r.user, domain) + (r.kind === 'service_account' ? ' (sa)' : '')).join(', ');
      lines.push(`Showing ${out.returned_rows} of ${int(out.total_rows)}${domain ? ` (emails ${domain})` : ''}: ${shown}`);
    }
    if (out.next_cursor) lines.push(`next_cursor: ${out.next_cursor}`);
    lines.push(freshnessLine(out.freshness));
    return lines.join('\n');
  },
});
