import { z } from 'zod';
import { freshnessLine } from '../../format/freshness.js';
import { commonDomain, count, int, shortId } from '../../format/text.js';
import { dau } from '../../upstream/endpoints/dau.js';
import { READ_ONLY, defineTool } from '../define-tool.js';
import { date, listInputs, pageInputs, usersInput } from '../shared/inputs.js';
import { listAsked, listOut, listOutput } from '../shared/listing.js';
import { identityOf, identityOut } from '../shared/rows.js';

/** What the tool asks the upstream for: the active list of the day. */
const asked = (args: { date?: string }) => ({ listing: dau, args: { date: args.date } });

export const listActiveUsers = defineTool({
  name: 'list_active_users',
  toolset: 'usage',
  title: 'Active users on a day',
  description:
    'Who was active on one UTC day, alphabetically; `users` checks specific people. Default: the latest complete day; 2 years of history.',
  input: z.strictObject({
    date: date.optional().describe('YYYY-MM-DD (UTC); default the latest complete day'),
    users: usersInput,
    ...listInputs,
    order: listInputs.order.default('asc'),
    ...pageInputs,
  }),
  output: z.object({
    date: z.string(),
    active: z.number().int().describe('that day; raw-page mode: this page'),
    users_active: z.number().int(),
    service_accounts_active: z.number().int(),
    rows: z.array(z.object(identityOut)),
    ...listOut,
  }),
  annotations: READ_ONLY,
  // Nothing fetched ahead: a day's list is asked for one day at a time.
  requests: { of: asked, warm: {} },
  async run(args, ctx) {
    const listed = await listAsked(ctx, asked, args);
    const all = listed.rows;
    const matching = listed.matching
      .map(identityOf)
      .sort((a, b) => (a.user < b.user ? -1 : 1) * (args.order === 'asc' ? 1 : -1));
    const accounts = all.filter((u) => u.service_account_name !== undefined).length;
    const rows = matching.slice(0, args.limit);
    return {
      date: listed.start,
      active: all.length,
      users_active: all.length - accounts,
      service_accounts_active: accounts,
      rows,
      ...listOutput(matching, rows, listed),
    };
  },
  text(out) {
    const domain = commonDomain(out.rows.map((r) => r.user));
    const scope = out.next_cursor !== null || out.truncated ? ' (partial: more pages exist)' : '';
    // A day not published yet is no count of zero: nobody listed yet, or who the upstream has so far (its
    // figures may still change until the refresh hour), and the answer says which first.
    const unpublished = out.freshness.not_published?.includes(out.date);
    const counted = `${int(out.active)} (${count(out.users_active, 'user')}, ${count(out.service_accounts_active, 'service account')})${scope}`;
    const lines = [
      !unpublished
        ? `Active on ${out.date}: ${counted}.`
        : out.active === 0
          ? `Active on ${out.date}: not published yet, so nobody is listed (see below when it will be).`
          : `Active on ${out.date}, not final (not published yet; see below when it will be): ${counted} so far.`,
    ];
    if (out.total_rows !== out.active) lines.push(`Matching your filter: ${out.total_rows}.`);
    if (out.rows.length > 0) {
      const shown = out.rows
        .map((r) => shortId(r.user, domain) + (r.kind === 'service_account' ? ' (sa)' : ''))
        .join(', ');
      lines.push(
        `Showing ${out.returned_rows} of ${int(out.total_rows)}${domain ? ` (emails ${domain})` : ''}: ${shown}`,
      );
    }
    if (out.next_cursor) lines.push(`next_cursor: ${out.next_cursor}`);
    lines.push(freshnessLine(out.freshness));
    return lines.join('\n');
  },
});
