import { rangeText } from '../../domain/dates.js';
import { z } from 'zod';
import { freshnessLine, freshnessOut, freshnessSchema } from '../../format/freshness.js';
import { commonDomain, int, shortId, usd, usdWhole } from '../../format/text.js';
import { costAnalytics, type CostQuery } from '../../upstream/endpoints/cost-analytics.js';
import { dailyUserActivityByEditorLanguage } from '../../upstream/endpoints/daily-user-activity-by-editor-language.js';
import { dauCount } from '../../upstream/endpoints/dau-count.js';
import { userActivity } from '../../upstream/endpoints/user-activity.js';
import { combineFreshness } from '../../domain/freshness.js';
import { formatDay } from '../../util/utc-date.js';
import { dauTrend, mean, trendOut, trendText } from './dau-trend.js';
import { READ_ONLY, defineTool } from '../define-tool.js';
import { rangeInputs } from '../shared/inputs.js';
import { listAll } from '../../upstream/listing/list-all.js';
import {
  costByModel,
  costSum,
  editorAdoption,
  editorsOut,
  lastWeekday,
  modelCostOut,
  OVERVIEW_SOURCES,
  sourcesOut,
  topUserOut,
  topUsers,
} from './overview-parts.js';
import { completePeriod } from '../shared/complete-days.js';
import { change, changeOut, previousPeriod } from '../shared/periods.js';
import { groupsOut, orgInputs } from '../shared/org-groups.js';
import { groupsText } from '../shared/org-groups-text.js';
import { identityKey } from '../../upstream/listing/merge.js';
import { overviewGroups } from './overview-groups.js';

const BY_MODEL: CostQuery = {
  group_by_keys: ['COST_ANALYTICS_GROUP_BY_RESOURCE'],
  granularity: 'COST_ANALYTICS_TIME_GRANULARITY_TOTAL',
};
const money = z.object({ billed_amount_usd: z.string(), credits_consumed: z.string() });

export const getUsageOverview = defineTool({
  name: 'get_usage_overview',
  toolset: 'usage',
  title: 'Usage overview',
  description:
    'How are we doing, in one call: active users with a full-week trend, top users, cost by model, cost and credits against the previous period, and editor adoption. ' +
    'Default: last_30_days, to the latest complete day.',
  input: z.strictObject({ ...rangeInputs, ...orgInputs }),
  output: z.object({
    start_date: z.string(),
    end_date: z.string(),
    covers: z.string().optional(),
    active_users: z.object({
      distinct: z.number().int(),
      daily_average: z.number(),
      peak: z.object({ date: z.string(), user_count: z.number().int() }).nullable(),
      trend: trendOut,
    }),
    top_users: z.array(topUserOut),
    cost_by_model: z.array(modelCostOut),
    cost: money,
    previous: z
      .object({ start_date: z.string(), end_date: z.string(), cost: money, change: z.record(z.string(), changeOut) })
      .nullable()
      .describe('null: before the 2-year lookback'),
    editors: editorsOut,
    sources: sourcesOut,
    ...groupsOut,
    freshness: freshnessSchema,
  }),
  annotations: READ_ONLY,
  async run(args, ctx) {
    const { period, covers } = completePeriod(ctx, args, 'last_30_days');
    const before = previousPeriod(period, ctx.client.today());
    const day = lastWeekday(period);
    const [dau, activity, cost, prior, editors] = await Promise.all([
      listAll(ctx, dauCount, { days: period }),
      listAll(ctx, userActivity, { days: period }),
      listAll(ctx, costAnalytics, { days: period, ...BY_MODEL }),
      before ? listAll(ctx, costAnalytics, { days: before, ...BY_MODEL }) : undefined,
      listAll(ctx, dailyUserActivityByEditorLanguage, { days: { start: day, end: day } }),
    ]);
    const days = dau.data;
    const peak = days.reduce<(typeof days)[number] | null>((p, d) => (p && p.user_count >= d.user_count ? p : d), null);
    const org = await overviewGroups(ctx, args, period, activity.data);
    const now = costSum(cost.data);
    const then = prior && costSum(prior.data);
    const parts = [dau, activity, cost, editors, ...(prior ? [prior] : [])];
    return {
      ...rangeText(period),
      ...(covers ? { covers } : {}),
      active_users: {
        distinct: activity.data.length,
        daily_average: mean(days.map((d) => d.user_count)) ?? 0,
        peak,
        trend: dauTrend(days),
      },
      top_users: topUsers(org ? activity.data.filter((u) => org.keeps(identityKey(u))) : activity.data, 5),
      cost_by_model: costByModel(cost.data),
      cost: now,
      previous:
        before && then
          ? {
              ...rangeText(before),
              cost: then,
              change: {
                billed_amount_usd: change(now.billed_amount_usd, then.billed_amount_usd),
                credits_consumed: change(now.credits_consumed, then.credits_consumed),
              },
            }
          : null,
      editors: editorAdoption(editors.data, formatDay(day)),
      sources: OVERVIEW_SOURCES,
      ...(org ? { groups: org.groups } : {}),
      freshness: freshnessOut(combineFreshness(parts.map((p) => p.freshness)), formatDay(period.end)),
    };
  },
  text(out) {
    const a = out.active_users;
    const lines = [
      `Overview ${out.start_date}..${out.end_date}: ${int(a.distinct)} active users and service accounts; ${int(Math.round(a.daily_average))} a day on average` +
        `${a.peak ? `, peak ${int(a.peak.user_count)} (${a.peak.date})` : ''}.${out.covers ? ` ${out.covers}` : ''}`,
      a.trend ? `DAU trend: ${trendText(a.trend)}.` : 'DAU trend: the range is too short (under 14 days).',
    ];
    const p = out.previous;
    const pct = (c: { percent: number | null }) =>
      c.percent === null ? 'n/a' : `${c.percent >= 0 ? '+' : ''}${c.percent}%`;
    lines.push(
      `Cost and credits (cost analytics): billed ${usd(out.cost.billed_amount_usd)}, credits ${int(out.cost.credits_consumed)}` +
        (p
          ? `; previous ${p.start_date}..${p.end_date}: ${usd(p.cost.billed_amount_usd)} (${pct(p.change.billed_amount_usd!)}), credits ${int(p.cost.credits_consumed)} (${pct(p.change.credits_consumed!)}).`
          : '; no previous period within the 2-year lookback.'),
    );
    if (out.cost_by_model.length)
      lines.push(
        `By model: ${out.cost_by_model.map((m) => `${m.model} ${usdWhole(m.billed_amount_usd)}${m.share_percent === null ? '' : ` ${m.share_percent}%`}`).join(', ')}.`,
      );
    if (out.top_users.length) {
      const domain = commonDomain(out.top_users.map((u) => u.user));
      lines.push(
        `Top by messages${domain ? ` (${domain})` : ''}: ${out.top_users
          .map(
            (u) =>
              `${shortId(u.user, domain)}${u.kind === 'service_account' ? ' (sa)' : ''} ${int(u.total_messages)} (${u.active_days} d)`,
          )
          .join(', ')}.`,
      );
    }
    const e = out.editors;
    lines.push(
      `Editors on ${e.date} (last weekday), people each; one person can use several: ${Object.entries(e.by_editor)
        .map(([name, n]) => `${name} ${int(n)}`)
        .join(', ')} of ${int(e.active_users)} active.`,
    );
    if (out.groups)
      lines.push(
        groupsText(
          out.groups,
          (v) =>
            `days ${int(Number(v.active_days ?? 0))}, messages ${int(Number(v.total_messages ?? 0))}, billed ${usd(String(v.billed_amount_usd ?? '0'))}`,
        ),
      );
    lines.push(freshnessLine(out.freshness));
    return lines.join('\n');
  },
});
