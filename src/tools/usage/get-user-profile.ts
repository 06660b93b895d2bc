import { rangeText } from '../../domain/dates.js';
import { z } from 'zod';
import { askedFreshnessSchema, freshnessLine } from '../../format/freshness.js';
import { int, plural, usd } from '../../format/text.js';
import { dailyUserActivityByEditorLanguage } from '../../upstream/endpoints/daily-user-activity-by-editor-language.js';
import { creditUsageByUser } from '../../upstream/endpoints/credit-usage-by-user.js';
import { userActivity } from '../../upstream/endpoints/user-activity.js';
import { combineFreshness } from '../../domain/freshness.js';
import { identityKey } from '../../upstream/listing/merge.js';
import { answerWithinMs, listAll } from '../../upstream/listing/list-all.js';
import { budgetStatuses, budgetUserRowOut, monthToDateOut } from '../budgets/budget-status.js';
import { READ_ONLY, defineTool } from '../define-tool.js';
import { rangeInputs } from '../shared/inputs.js';
import { metricValues } from '../shared/metrics.js';
import { answerFreshness, completePeriod } from '../shared/complete-days.js';
import {
  costOf,
  costProfile,
  creditsOf,
  latestActiveDay,
  profileCostOut,
  profileCreditsOut,
  usesOf,
  usesOut,
} from './profile-parts.js';
import { sourcesOut } from './overview-parts.js';
import { identityNamed, identityOf } from '../shared/rows.js';
import { TimeoutError, UpstreamUnavailableError } from '../../upstream/errors.js';

export const getUserProfile = defineTool({
  name: 'get_user_profile',
  toolset: 'usage',
  title: 'One person or service account',
  description:
    'One person or service account over a range: usage metrics, cost and credits by model, budget status this month, editors and languages on the latest active day. ' +
    'Default: last_30_days, to the latest complete day.',
  input: z.strictObject({
    user: z.string().min(1).describe('email, pseudonym or service-account name'),
    ...rangeInputs,
  }),
  output: z.object({
    ...budgetUserRowOut.pick({ user: true, kind: true }).shape,
    start_date: z.string(),
    end_date: z.string(),
    activity: z
      .object({ active_days: z.number().int(), metrics: metricValues })
      .nullable()
      .describe('null: not active'),
    credits: profileCreditsOut,
    cost: profileCostOut,
    budget: budgetUserRowOut
      .omit({ user: true, kind: true })
      .extend({ plan: z.enum(['credits', 'usd']).nullable(), ...monthToDateOut.shape })
      .nullable()
      .describe('null: the upstream could not be reached (see budget_unavailable)'),
    budget_unavailable: z.string().optional(),
    uses: usesOut.nullable().describe('null: no active day'),
    sources: sourcesOut,
    freshness: askedFreshnessSchema,
  }),
  annotations: READ_ONLY,
  async run(args, ctx) {
    const deadline = Date.now() + answerWithinMs(ctx.config);
    // The dates first: a refused range sends no request, not even to find the user.
    const { period } = completePeriod(ctx, args, 'last_30_days');
    const who = await identityNamed(ctx, args.user);
    const [{ activity, row, latest, records }, cost, credits, budget] = await Promise.all([
      listAll(ctx, userActivity, { days: period }).then(async (activity) => {
        const row = activity.data.find((u) => identityKey(u) === identityKey(who));
        // The latest active day is activity's, not cost's: the daily active lists, then that day's every record.
        const latest = row ? await latestActiveDay(ctx, who, period, deadline) : { freshness: [] };
        const records = latest.date
          ? await listAll(ctx, dailyUserActivityByEditorLanguage, { date: latest.date }, deadline - Date.now())
          : undefined;
        return { activity, row, latest, records };
      }),
      costOf(ctx, who, period),
      listAll(ctx, creditUsageByUser, { days: period, by_model: true }),
      // This month's budget is read live: unreachable, the rest of the profile (the store's days) still answers.
      budgetStatuses(ctx, [who]).catch((error: unknown) => {
        if (error instanceof UpstreamUnavailableError || error instanceof TimeoutError) return error;
        throw error;
      }),
    ]);
    const unreachable = budget instanceof Error ? budget : undefined;
    const read = budget instanceof Error ? undefined : budget;
    const status = read && (({ user: _u, kind: _k, ...rest }) => rest)(read.rows[0]!);
    const parts = [
      activity.freshness,
      cost.freshness,
      credits.freshness,
      ...(read?.freshness ?? []),
      ...latest.freshness,
      ...(records ? [records.freshness] : []),
    ];
    return {
      ...identityOf(who),
      ...rangeText(period),
      activity: row ? { active_days: row.active_days, metrics: { ...row.metrics } } : null,
      credits: creditsOf(credits.data, who),
      cost: costProfile(cost.data),
      budget: read ? { plan: read.plan, ...status!, ...read.month_to_date } : null,
      ...(unreachable
        ? {
            budget_unavailable: `This month's budget is read live, and the upstream could not be reached (${unreachable.message}); ask again later for it.`,
          }
        : {}),
      uses: records && latest.date ? usesOf(records.data, who, latest.date) : null,
      sources: {
        activity: 'user-activity',
        credits: 'credit-usage-by-user',
        cost: 'cost-analytics',
        // The budget counts credits on a credits plan, billed USD on a USD plan; unknown plan: no figure.
        ...(read?.plan ? { budget: read.plan === 'credits' ? 'credit-usage-by-user' : 'cost-analytics' } : {}),
        latest_active_day: 'dau',
        uses: 'daily-user-activity-by-editor-language',
      },
      // Data through the period's end; the days asked for after it (previous_month's last) are named.
      freshness: answerFreshness(ctx, combineFreshness(parts), args, args.end_date ?? rangeText(period).end_date),
    };
  },
  text(out) {
    const lines = [
      `${out.user}${out.kind === 'service_account' ? ' (service account)' : ''}, ${out.start_date}..${out.end_date}:`,
    ];
    const a = out.activity;
    const shown = a ? Object.entries(a.metrics).filter(([, v]) => v !== 0) : [];
    lines.push(
      a
        ? `Active ${a.active_days} ${plural(a.active_days, 'day')}; ${shown.map(([m, v]) => `${m} ${int(v)}`).join(', ') || 'no activity'}.`
        : 'No activity in the range.',
    );
    const cr = out.credits;
    const c = out.cost;
    const models = <T extends { model: string }>(ms: T[], v: (m: T) => string) =>
      ms.length ? `; by model: ${ms.map((m) => `${m.model} ${v(m)}`).join(', ')}.` : '.';
    lines.push(
      `Credits (credit usage) ${int(cr.credits_consumed)}` + models(cr.by_model, (m) => int(m.credits_consumed)),
    );
    lines.push(
      `Cost (cost analytics) billed ${usd(c.billed_amount_usd)}` + models(c.by_model, (m) => usd(m.billed_amount_usd)),
    );
    const b = out.budget;
    if (!b) lines.push(`Budget this month: unavailable. ${out.budget_unavailable ?? ''}`.trim());
    else lines.push(budgetLine(b));
    const u = out.uses;
    const list = (r: Record<string, number>) =>
      Object.entries(r)
        .sort((x, y) => y[1] - x[1])
        .map(([k, v]) => `${k} ${int(v)}`)
        .join(', ') || 'none';
    lines.push(
      u
        ? `On ${u.date} (latest active day), messages by editor: ${list(u.editors)}; by language: ${list(u.languages)}.`
        : 'Editors and languages: no active day in the range.',
    );
    lines.push(freshnessLine(out.freshness));
    return lines.join('\n');
  },
});

type ProfileBudget = NonNullable<z.infer<(typeof getUserProfile)['output']>['budget']>;

function budgetLine(b: ProfileBudget): string {
  const limit = b.limit === null ? 'no override' : b.limit === '' ? 'override cleared' : `limit ${int(b.limit)}`;
  return (
    `Budget this month (${b.plan ?? 'plan unknown'}): ${limit}; status ${b.status}` +
    (b.used === null ? '' : `; used ${int(b.used)}`) +
    (b.percent_used === null ? '' : ` (${b.percent_used}%)`) +
    (b.projected === null ? '' : `, projected ${int(b.projected)}`) +
    (b.limit_day ? `, limit reached ${b.limit_day}` : '') +
    `. ${b.covers}`
  );
}
