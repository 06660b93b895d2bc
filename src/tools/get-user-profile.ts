import { rangeText } from '../upstream/dates.js';
import { z } from 'zod';
import { freshnessLine, freshnessOut, freshnessSchema } from '../format/freshness.js';
import { int, plural, usd } from '../format/text.js';
import { dailyUserActivityByEditorLanguage } from '../upstream/endpoints/daily-user-activity-by-editor-language.js';
import { userActivity } from '../upstream/endpoints/user-activity.js';
import { combineFreshness } from '../upstream/freshness.js';
import { identityKey } from '../upstream/merge.js';
import { answerWithinMs } from './answer-pending.js';
import { budgetStatuses, budgetUserRowOut, monthToDateOut } from './budget-status.js';
import { READ_ONLY, defineTool } from './define-tool.js';
import { rangeInputs } from './inputs.js';
import { listAll } from './listing.js';
import { metricValues } from './metrics.js';
import { modelCostOut } from './overview-parts.js';
import { completePeriod } from './complete-days.js';
import { costOf, costProfile, usesOf, usesOut } from './profile-parts.js';
import { identityNamed } from './rows.js';
import { identityOf } from './rows.js';

export const getUserProfile = defineTool({
  name: 'get_user_profile',
  title: 'One person or service account',
  description:
    'One person or service account over a range: usage metrics, cost and credits by model, budget status this month, editors and languages on the latest active day. ' +
    'Default: last_30_days; a day arrives ~02:00 UTC the next day.',
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
    cost: z.object({ billed_amount_usd: z.string(), credits_consumed: z.string(), by_model: z.array(modelCostOut) }),
    budget: budgetUserRowOut
      .omit({ user: true, kind: true })
      .extend({ plan: z.enum(['credits', 'usd']).nullable(), ...monthToDateOut.shape }),
    uses: usesOut.nullable().describe('editors and languages, messages each; null: no active day'),
    freshness: freshnessSchema,
  }),
  annotations: READ_ONLY,
  async run(args, ctx) {
    const deadline = Date.now() + answerWithinMs(ctx.config);
    const who = await identityNamed(ctx, args.user);
    const { period } = completePeriod(ctx, args, 'last_30_days');
    const [activity, costThenUses, budget] = await Promise.all([
      listAll(ctx, userActivity, rangeText(period)),
      costOf(ctx, who, period).then(async (cost) => {
        const profile = costProfile(cost);
        const day = profile.latest;
        const records = day
          ? await listAll(ctx, dailyUserActivityByEditorLanguage, { date: day }, deadline - Date.now())
          : undefined;
        return { cost, profile, records, day };
      }),
      budgetStatuses(ctx, [who]),
    ]);
    const { cost, profile, records, day } = costThenUses;
    const row = activity.data.find((u) => identityKey(u) === identityKey(who));
    const { user: _u, kind: _k, ...status } = budget.rows[0]!;
    const parts = [activity.freshness, cost.freshness, ...budget.freshness, ...(records ? [records.freshness] : [])];
    return {
      ...identityOf(who),
      ...rangeText(period),
      activity: row ? { active_days: row.active_days, metrics: { ...row.metrics } } : null,
      cost: profile.cost,
      budget: { plan: budget.plan, ...status, ...budget.month_to_date },
      uses: records && day ? usesOf(records.data, who, day) : null,
      freshness: freshnessOut(combineFreshness(parts), rangeText(period).end_date),
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
    const c = out.cost;
    lines.push(
      `Cost billed ${usd(c.billed_amount_usd)}, credits ${int(c.credits_consumed)}` +
        (c.by_model.length
          ? `; by model: ${c.by_model.map((m) => `${m.model} ${usd(m.billed_amount_usd)} / ${int(m.credits_consumed)} cr`).join(', ')}.`
          : '.'),
    );
    const b = out.budget;
    const limit = b.limit === null ? 'no override' : b.limit === '' ? 'override cleared' : `limit ${int(b.limit)}`;
    lines.push(
      `Budget this month (${b.plan ?? 'plan unknown'}): ${limit}; status ${b.status}` +
        (b.used === null ? '' : `; used ${int(b.used)}`) +
        (b.percent_used === null ? '' : ` (${b.percent_used}%)`) +
        (b.projected === null ? '' : `, projected ${int(b.projected)}`) +
        (b.limit_day ? `, limit reached ${b.limit_day}` : '') +
        `. ${b.covers}`,
    );
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
