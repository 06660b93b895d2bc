import { z } from 'zod';
import type { MetricField } from '../../contract/metrics.js';
import { freshnessLine } from '../../format/freshness.js';
import { commonDomain, int, shortId, table } from '../../format/text.js';
import { userActivity } from '../../upstream/endpoints/user-activity.js';
import { comparable } from '../shared/comparable.js';
import { moverMap } from '../shared/compare.js';
import { READ_ONLY, defineTool } from '../define-tool.js';
import {
  listInputs,
  metricsInput,
  pageInputs,
  rangeInputs,
  rangeRequest,
  sortByInput,
  usersInput,
} from '../shared/inputs.js';
import { listAsked, listOut, listOutput } from '../shared/listing.js';
import { listAll } from '../../upstream/listing/list-all.js';
import { metricFields, metricValues, pickMetrics, sumMetrics } from '../shared/metrics.js';
import { identityOf, identityOut, sortRows, userMatcher } from '../shared/rows.js';
import { groupsOut, orgInputs } from '../shared/org-groups.js';
import { personGroups } from '../shared/person-groups.js';
import { groupsText } from '../shared/org-groups-text.js';

/** What the tool asks the upstream for: user activity over the range. */
const asked = rangeRequest(userActivity);

export const getUserActivity = comparable(
  defineTool({
    name: 'get_user_activity',
    toolset: 'usage',
    title: 'Per-user activity',
    description:
      'Who used the product most or least: per person and service account, active days and usage over the range, sorted by any metric; totals cover everyone. ' +
      'Default: the last 7 complete days; 2 years of history.',
    input: z.strictObject({
      ...rangeInputs,
      metrics: metricsInput,
      users: usersInput,
      sort_by: sortByInput(['active_days'], 'total_messages'),
      ...orgInputs,
      ...listInputs,
      ...pageInputs,
    }),
    output: z.object({
      start_date: z.string(),
      end_date: z.string(),
      sort_by: z.string(),
      metrics: z.array(z.string()),
      rows: z.array(z.object({ ...identityOut, active_days: z.number().int(), values: metricValues })),
      totals: z.object({ active_user_days: z.number().int(), values: metricValues }),
      ...groupsOut,
      ...listOut,
    }),
    annotations: READ_ONLY,
    requests: { of: asked, warm: { 'user-activity': {} } },
    async run(args, ctx) {
      const listed = await listAsked(ctx, asked, args);
      const fields = metricFields(args.metrics, args.sort_by);
      const { kept, groups } = await personGroups(
        ctx,
        args,
        listed,
        async (days) => (await listAll(ctx, userActivity, { days })).data,
        (u) => ({ active_days: u.active_days, ...pickMetrics(u.metrics, fields) }),
      );
      const all = kept.map((u) => ({
        ...identityOf(u),
        active_days: u.active_days,
        values: pickMetrics(u.metrics, fields),
        sortKey: args.sort_by === 'active_days' ? u.active_days : u.metrics[args.sort_by as MetricField],
      }));
      const sorted = sortRows(
        all,
        (r) => r.sortKey,
        args.order,
        (r) => r.user,
      );
      const rows = sorted.slice(0, args.limit).map(({ sortKey: _s, ...r }) => r);
      return {
        start_date: listed.start,
        end_date: listed.end,
        sort_by: args.sort_by,
        metrics: fields,
        rows,
        totals: {
          active_user_days: all.reduce((n, r) => n + r.active_days, 0),
          values: sumMetrics(all, fields),
        },
        ...(groups ? { groups } : {}),
        ...listOutput(all, rows, listed),
      };
    },
    text(out) {
      const shown = out.metrics.filter((m) => out.totals.values[m] !== 0);
      const domain = commonDomain(out.rows.map((r) => r.user));
      const partial = out.truncated || out.next_cursor !== null ? ' Partial: not every page was read.' : '';
      const lines = [
        `User activity ${out.start_date}..${out.end_date}: ${int(out.total_rows)} active users and service accounts; top ${out.returned_rows} by ${out.sort_by}.${partial}`,
        `Totals (all ${int(out.total_rows)}): active user-days ${int(out.totals.active_user_days)}, ${shown.map((m) => `${m} ${int(out.totals.values[m]!)}`).join(', ')}.`,
      ];
      if (out.rows.length) {
        lines.push(
          table(
            [`user${domain ? ` (${domain})` : ''}`, 'days', ...shown],
            out.rows.map((r) => [
              shortId(r.user, domain) + (r.kind === 'service_account' ? ' (sa)' : ''),
              r.active_days,
              ...shown.map((m) => r.values[m]),
            ]),
          ),
        );
      }
      if (out.groups)
        lines.push(
          groupsText(out.groups, (v) =>
            [`days ${int(Number(v.active_days))}`, ...shown.map((m) => `${m} ${int(Number(v[m] ?? 0))}`)].join(', '),
          ),
        );
      if (out.next_cursor) lines.push(`next_cursor: ${out.next_cursor}`);
      lines.push(freshnessLine(out.freshness));
      return lines.join('\n');
    },
  }),
  {
    figures: (o) => [
      { name: 'active_users', value: o.total_rows, kind: 'distinct' },
      { name: 'active_user_days', value: o.totals.active_user_days, kind: 'sum' },
      ...o.metrics.map((m) => ({ name: m, value: o.totals.values[m]!, kind: 'sum' as const })),
    ],
    movers: {
      by: (args) => args.sort_by,
      async read(ctx, args, period) {
        const match = await userMatcher(args.users, ctx);
        const rows = (await listAll(ctx, userActivity, { days: period })).data.filter((u) => !match || match(u));
        return moverMap(rows, (u) =>
          args.sort_by === 'active_days' ? u.active_days : u.metrics[args.sort_by as MetricField],
        );
      },
    },
  },
);
