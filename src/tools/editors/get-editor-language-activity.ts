import { z } from 'zod';
import { freshnessLine } from '../../format/freshness.js';
import { commonDomain, count, int, percent, shortId, table } from '../../format/text.js';
import { identityKey } from '../../upstream/listing/merge.js';
import { dailyUserActivityByEditorLanguage } from '../../upstream/endpoints/daily-user-activity-by-editor-language.js';
import { READ_ONLY, defineTool } from '../define-tool.js';
import { date, listInputs, metricsInput, pageInputs, sortByInput, usersInput } from '../shared/inputs.js';
import { listAsked, listOut, listOutput } from '../shared/listing.js';
import { metricFields, metricValues, pickMetrics, sumMetrics } from '../shared/metrics.js';
import { identityOf, sortRows } from '../shared/rows.js';

const GROUPS = ['editor', 'language', 'editor_language', 'user'] as const;

/** What the tool asks the upstream for: the day's records by editor and language. */
const asked = (args: { date?: string }) => ({ listing: dailyUserActivityByEditorLanguage, args: { date: args.date } });

export const getEditorLanguageActivity = defineTool({
  name: 'get_editor_language_activity',
  toolset: 'editors',
  title: 'Activity by editor and language',
  description:
    'Which editors (VS Code, JetBrains, CLI…) and languages were used on one UTC day, by how many people; group_by sums, else rows are per user/editor/language. ' +
    'Default: the latest complete day; 2 years of history.',
  input: z.strictObject({
    date: date.optional().describe('YYYY-MM-DD (UTC); default the latest complete day'),
    group_by: z.enum(GROUPS).optional(),
    metrics: metricsInput,
    users: usersInput,
    sort_by: sortByInput(['users'], 'total_messages'),
    ...listInputs,
    ...pageInputs,
  }),
  output: z.object({
    date: z.string(),
    group_by: z.string().nullable(),
    sort_by: z.string(),
    metrics: z.array(z.string()),
    rows: z.array(
      z.object({
        editor: z.string().optional(),
        language: z.string().optional(),
        user: z.string().optional(),
        kind: z.enum(['user', 'service_account']).optional(),
        users: z.number().int().describe('distinct identities'),
        values: metricValues,
      }),
    ),
    totals: z.object({ users: z.number().int(), records: z.number().int(), values: metricValues }),
    ...listOut,
  }),
  annotations: READ_ONLY,
  // Nothing fetched ahead: a day's records are asked for one day at a time.
  requests: { of: asked, warm: {} },
  async run(args, ctx) {
    const listed = await listAsked(ctx, asked, args);
    const fields = metricFields(args.metrics, args.sort_by);
    const chosen = listed.matching;

    type Row = {
      editor?: string;
      language?: string;
      user?: string;
      kind?: 'user' | 'service_account';
      members: Set<string>;
      values: Record<string, number>;
    };
    const groups = new Map<string, Row>();
    chosen.forEach((r, i) => {
      const id = identityOf(r);
      const g = args.group_by;
      const key =
        g === 'editor'
          ? r.editor
          : g === 'language'
            ? r.language
            : g === 'editor_language'
              ? `${r.editor}\u0000${r.language}`
              : g === 'user'
                ? identityKey(r)
                : String(i);
      let row = groups.get(key);
      if (!row) {
        row = {
          ...(g !== 'language' && g !== 'user' ? { editor: r.editor } : {}),
          ...(g !== 'editor' && g !== 'user' ? { language: r.language } : {}),
          ...(g === 'user' || g === undefined ? id : {}),
          members: new Set(),
          values: Object.fromEntries(fields.map((f) => [f, 0])),
        };
        groups.set(key, row);
      }
      row.members.add(identityKey(r));
      const picked = pickMetrics(r.metrics, fields);
      for (const f of fields) row.values[f]! += picked[f]!;
    });
    const all = [...groups.values()].map(({ members, ...r }) => ({ ...r, users: members.size }));
    const sortKey = (r: (typeof all)[number]) => (args.sort_by === 'users' ? r.users : r.values[args.sort_by]!);
    const sorted = sortRows(all, sortKey, args.order, (r) => `${r.editor ?? ''}|${r.language ?? ''}|${r.user ?? ''}`);
    const rows = sorted.slice(0, args.limit);
    return {
      date: listed.start,
      group_by: args.group_by ?? null,
      sort_by: args.sort_by,
      metrics: fields,
      rows,
      totals: {
        users: new Set(chosen.map(identityKey)).size,
        records: chosen.length,
        values: sumMetrics(all, fields),
      },
      ...listOutput(all, rows, listed),
    };
  },
  text(out) {
    const shown = out.metrics.filter((m) => out.totals.values[m] !== 0);
    const lead = shown[0];
    const domain = commonDomain(out.rows.flatMap((r) => (r.user ? [r.user] : [])));
    const label = (r: (typeof out.rows)[number]) =>
      [
        r.editor,
        r.language,
        r.user ? shortId(r.user, domain) + (r.kind === 'service_account' ? ' (sa)' : '') : undefined,
      ]
        .filter(Boolean)
        .join(' / ');
    const partial = out.truncated || out.next_cursor !== null ? ' Partial: not every page was read.' : '';
    const by = out.group_by ? `by ${out.group_by}` : 'per user, editor and language';
    const lines = [
      `Editor/language activity on ${out.date}, ${by}: ${count(out.total_rows, 'row')}, ${count(out.totals.users, 'distinct user')}; top ${out.returned_rows} by ${out.sort_by}.${partial}`,
      `Totals: ${shown.map((m) => `${m} ${int(out.totals.values[m]!)}`).join(', ') || 'no activity'}.`,
    ];
    // Without this, a model adds up the per-editor counts and reports more people than there are.
    const counted = out.rows.reduce((sum, r) => sum + r.users, 0);
    if (out.group_by && out.group_by !== 'user' && counted > out.totals.users) {
      const several =
        { editor: 'editors', language: 'languages', editor_language: 'editor/language pairs' }[out.group_by] ?? 'rows';
      lines.push(
        `One person can use several ${several}, so the users per row add up to ${int(counted)}, more than the ${int(out.totals.users)} distinct users.`,
      );
    }
    if (out.rows.length) {
      const columns = [out.group_by ?? 'user / editor / language', 'users', ...shown];
      if (domain) columns[0] += ` (${domain})`;
      if (lead) columns.push(`share of ${lead}`);
      lines.push(
        table(
          columns,
          out.rows.map((r) => [
            label(r),
            r.users,
            ...shown.map((m) => r.values[m]),
            ...(lead ? [percent(r.values[lead]!, out.totals.values[lead]!)] : []),
          ]),
        ),
      );
    }
    if (out.next_cursor) lines.push(`next_cursor: ${out.next_cursor}`);
    lines.push(freshnessLine(out.freshness));
    return lines.join('\n');
  },
});
