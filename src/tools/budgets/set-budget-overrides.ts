import { z } from 'zod';
import type { BillingPlan } from '../../contract/enums.js';
import { getUserBudgetOverrides, planOf } from '../../upstream/endpoints/get-user-budget-overrides.js';
import { applyChanges, type Chunk } from './apply-budget-changes.js';
import { periodInput, resourceInput } from '../../domain/budget-resources.js';
import { confirmWrites, howToApply, type Confirmation } from './budget-confirmation.js';
import { planChanges } from './budget-plan.js';
import type { EntryInput } from './budget-entries.js';
import { isFailedWrite, writeAnswer, writeAnswerOf, writeAnswerText } from './budget-write-answer.js';
import { teamEntries, teamMembers } from './team-members.js';
import { UserInputError } from '../../errors.js';
import { int, plural } from '../../format/text.js';
import { defineTool } from '../define-tool.js';
import type { ToolContext } from '../types.js';

const WRITES = new Set(['new', 'changed', 'cleared']);

const entryInput = z.strictObject({
  user_email: z.string().optional(),
  service_account_name: z.string().optional(),
  limit: z
    .union([z.string(), z.number(), z.null()], {
      error: 'use a positive whole number (a string, or a JSON number up to 2^53-1), or null or "" to clear',
    })
    .describe('positive integer (string for more than 15 digits); null or "" clears'),
  resource: resourceInput.optional().describe('default: the billing plan'),
  period: periodInput.optional(),
});

export const setBudgetOverrides = defineTool({
  name: 'set_budget_overrides',
  toolset: 'budgets',
  title: 'Set budget overrides',
  description:
    'Sets, changes or clears per-user monthly budget limits. Preview with dry_run first (writes nothing). ' +
    'Invalid entries are never sent; valid ones are applied even if others fail; every entry is counted. The user may be asked to confirm. Takes effect in real time.',
  input: z.strictObject({
    overrides: z.array(entryInput).min(1).max(50_000).optional(),
    dry_run: z.boolean().default(false),
    team: z.string().min(1).max(200).optional().describe('instead of overrides: everyone in this team and below, now'),
    limit: entryInput.shape.limit.optional().describe('with team: the limit for each member'),
    resource: entryInput.shape.resource,
    period: entryInput.shape.period,
  }),
  output: writeAnswer.extend({
    team: z.object({ name: z.string(), members: z.number().int(), as_of: z.string() }).optional(),
  }),
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: true },
  async run(args, ctx) {
    const { entries, team } = await entriesOf(args, ctx);
    const plan = await billingPlan(ctx);
    const planned = await planChanges(entries, plan, ctx);
    const writes = planned.filter((p) => WRITES.has(p.status));
    const result = (confirmation: Confirmation, chunks: Chunk[] = []) => ({
      ...writeAnswerOf(args.dry_run, plan, confirmation, planned, chunks, howToApply(ctx)),
      ...(team ? { team } : {}),
    });
    if (args.dry_run || writes.length === 0) return result('not_asked');
    const confirmation = await confirmWrites(writes, ctx);
    if (confirmation === 'declined' || confirmation === 'cancelled') return result(confirmation);
    return result(confirmation, await applyChanges(writes, ctx));
  },
  isError: isFailedWrite,
  text: (out) =>
    (out.team
      ? `Team ${out.team.name}: ${int(out.team.members)} ${plural(out.team.members, 'member', 'members')} as of ${out.team.as_of}.\n`
      : '') + writeAnswerText(out),
});

type Args = { overrides?: EntryInput[] | undefined; team?: string | undefined } & Omit<
  EntryInput,
  'user_email' | 'service_account_name'
>;

/** The entries as given, or one per member of the team named, each with the limit given. */
async function entriesOf(args: Args, ctx: ToolContext) {
  const single = args.limit !== undefined || args.resource !== undefined || args.period !== undefined;
  if (args.team === undefined) {
    if (!args.overrides)
      throw new UserInputError('give overrides (a list of entries), or team with a limit for everyone in it');
    if (single)
      throw new UserInputError('limit, resource and period go with team; with overrides, give them in each entry');
    return { entries: args.overrides };
  }
  if (args.overrides) throw new UserInputError('give either overrides or team, not both: call once for each');
  if (args.limit === undefined)
    throw new UserInputError('team needs a limit for its members (a positive whole number; null or "" clears)');
  const { day, members } = await teamMembers(ctx, args.team);
  const entries = teamEntries(members, { limit: args.limit, resource: args.resource, period: args.period });
  return { entries, team: { name: args.team, members: members.length, as_of: day } };
}

/**
 * ANALYTICS_BILLING_PLAN, else what the existing overrides show (when every one of them names the same
 * resource). Looked up even when every entry names its resource: a known plan stops a mismatched entry
 * before it is sent.
 */
async function billingPlan(ctx: ToolContext): Promise<BillingPlan | undefined> {
  if (ctx.config.billingPlan) return ctx.config.billingPlan;
  return planOf((await ctx.client.call(getUserBudgetOverrides, {}, ctx.signal)).value);
}
