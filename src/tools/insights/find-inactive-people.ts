import { z } from 'zod';
import { combineFreshness } from '../../domain/freshness.js';
import { askedFreshnessSchema, freshnessLine } from '../../format/freshness.js';
import { commonDomain, count, int, shortId, table } from '../../format/text.js';
import { UserInputError } from '../../errors.js';
import { LOOKBACK_YEARS } from '../../contract/limits.js';
import { earliestDay } from '../../domain/dates.js';
import { formatDay } from '../../util/utc-date.js';
import { identityKey, type IdentityRef } from '../../upstream/listing/merge.js';
import { groupsOut, orgInputs, orgScope } from '../shared/org-groups.js';
import { groupFigures } from '../shared/group-figures.js';
import { groupsText } from '../shared/org-groups-text.js';
import { READ_ONLY, defineTool } from '../define-tool.js';
import { answerFreshness, latestCompleteDay } from '../shared/complete-days.js';
import { budgetOverrides, goneLive } from '../../insights/inactive-parts.js';
import { goneStored } from '../../insights/inactive-stored.js';
import { listInputs, usersInput } from '../shared/inputs.js';
import { userMatcher } from '../shared/rows.js';

const seat = {
  last_active_date: z.string().nullable().describe('null: the history store lacks the daily lists'),
  active_days: z.number().int(),
  credits: z.number(),
  budget_override: z.object({ resource: z.string(), limit: z.string() }).optional(),
};

export const findInactivePeople = defineTool({
  name: 'find_inactive_people',
  toolset: 'insights',
  title: 'Inactive people',
  description:
    'Seats to reclaim: who was active in the last lookback_days complete days but not in the last inactive_days, with the last active day, active days, credits and budget override; service accounts apart. ' +
    'The last active day needs the history store (`sync`).',
  input: z.strictObject({
    inactive_days: z.number().int().min(1).max(365).default(30),
    lookback_days: z.number().int().min(2).max(730).default(90),
    users: usersInput,
    ...orgInputs,
    limit: listInputs.limit,
  }),
  output: z.object({
    start_date: z.string(),
    inactive_since: z.string(),
    end_date: z.string(),
    people: z.array(z.object({ user_email: z.string(), ...seat })),
    service_accounts: z.array(z.object({ service_account_name: z.string(), ...seat })),
    count: z.number().int(),
    totals: z.object({ people: z.number().int(), service_accounts: z.number().int(), credits: z.number() }),
    returned_rows: z.number().int(),
    /** What would make last_active_date known, when the store lacks days. */
    needs: z.string().optional(),
    /** Why the lookback starts later than asked. */
    covers: z.string().optional(),
    ...groupsOut,
    freshness: askedFreshnessSchema,
  }),
  annotations: READ_ONLY,
  async run(args, ctx) {
    if (args.lookback_days <= args.inactive_days)
      throw new UserInputError(
        `lookback_days (${args.lookback_days}) must be more than inactive_days (${args.inactive_days}): the people found were active in the lookback before the inactive days.`,
      );
    const end = latestCompleteDay(ctx);
    // The upstream refuses days beyond its lookback: a lookback reaching there starts at its earliest day.
    const earliest = earliestDay(ctx.client.days().today);
    const lookback = { start: Math.max(end - args.lookback_days + 1, earliest), end };
    const cut = end - args.lookback_days + 1 < earliest;
    const before = { start: lookback.start, end: end - args.inactive_days };
    const recent = { start: before.end + 1, end };
    const users = await userMatcher(args.users, ctx);
    // Teams as of the last day: who is in them now.
    const scope = await orgScope(ctx, lookback, args);
    const inTeams =
      scope?.teams && ((r: IdentityRef) => scope.view.directory.inTeams(identityKey(r), formatDay(end), scope.teams!));
    const match = users && inTeams ? (r: IdentityRef) => users(r) && inTeams(r) : (users ?? inTeams);
    const periods = { lookback, before, recent };
    const [found, budgets] = await Promise.all([
      goneStored(ctx, periods, match).then((stored) => stored ?? goneLive(ctx, periods, match)),
      budgetOverrides(ctx),
    ]);
    const rows = found.gone
      .map((g) => {
        const budget = budgets.byKey.get(identityKey(g.row));
        return { ...g, ...(budget ? { budget_override: budget } : {}) };
      })
      // Longest gone first; without the days, the least used first.
      .sort(
        (a, b) =>
          (a.last_active_date ?? '').localeCompare(b.last_active_date ?? '') ||
          a.active_days - b.active_days ||
          a.credits - b.credits ||
          identityKey(a.row).localeCompare(identityKey(b.row)),
      );
    const shown = rows.slice(0, args.limit);
    const groups =
      scope?.by &&
      groupFigures(
        ctx,
        { ...scope, by: scope.by },
        [{ part: { start: end, end }, rows }],
        (g) => identityKey(g.row),
        (g) => ({
          inactive: 1,
          credits: g.credits,
        }),
      );
    const people = shown.flatMap(({ row, ...r }) => (row.user_email ? [{ user_email: row.user_email, ...r }] : []));
    const accounts = shown.flatMap(({ row, ...r }) =>
      row.service_account_name ? [{ service_account_name: row.service_account_name, ...r }] : [],
    );
    const freshness = combineFreshness([...found.freshness, budgets.freshness]);
    // Through today: credit usage's stored days count from today, the others' from yesterday.
    const storeDays = ctx.client.days().today - lookback.start + 1;
    return {
      start_date: formatDay(lookback.start),
      inactive_since: formatDay(recent.start),
      end_date: formatDay(end),
      people,
      service_accounts: accounts,
      count: rows.length,
      totals: {
        people: rows.filter((r) => r.row.user_email).length,
        service_accounts: rows.filter((r) => !r.row.user_email).length,
        credits: rows.reduce((n, r) => n + r.credits, 0),
      },
      returned_rows: shown.length,
      ...(groups ? { groups } : {}),
      ...(found.lastKnown
        ? {}
        : {
            needs: `last_active_date needs the daily lists of ${formatDay(before.start)}..${formatDay(before.end)} in the history store: run \`org-analytics-mcp sync --history-days ${storeDays}\`.`,
          }),
      ...(cut
        ? {
            covers: `The lookback starts on ${formatDay(lookback.start)}, ${end - lookback.start + 1} days rather than ${args.lookback_days}: the API keeps ${LOOKBACK_YEARS} years.`,
          }
        : {}),
      freshness: answerFreshness(ctx, freshness, {}, formatDay(end)),
    };
  },
  text(out) {
    const all = [
      ...out.people.map((p) => ({ ...p, id: p.user_email })),
      ...out.service_accounts.map((s) => ({ ...s, id: `${s.service_account_name} (sa)` })),
    ];
    const domain = commonDomain(out.people.map((p) => p.user_email));
    const lines = [
      `Inactive since ${out.inactive_since} (through ${out.end_date}) after activity from ${out.start_date}: ${count(out.totals.people, 'person', 'people')} and ${count(out.totals.service_accounts, 'service account')}, who used ${int(out.totals.credits)} credits in the lookback.`,
    ];
    if (all.length) {
      lines.push(
        table(
          [`who${domain ? ` (${domain})` : ''}`, 'last active', 'days', 'credits', 'budget'],
          all.map((r) => [
            shortId(r.id, domain),
            r.last_active_date ?? '?',
            r.active_days,
            r.credits,
            r.budget_override ? `${r.budget_override.limit} ${r.budget_override.resource}` : '',
          ]),
        ),
      );
      if (out.returned_rows < out.count) lines.push(`Showing ${out.returned_rows} of ${int(out.count)}.`);
    }
    if (out.needs) lines.push(out.needs);
    if (out.covers) lines.push(out.covers);
    if (out.groups)
      lines.push(
        groupsText(out.groups, (v) => `${int(Number(v.inactive))} inactive, ${int(Number(v.credits))} credits`),
      );
    lines.push(freshnessLine(out.freshness));
    return lines.join('\n');
  },
});
