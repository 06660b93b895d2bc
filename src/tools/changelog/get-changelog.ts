import { plural } from '../../format/text.js';
import { z } from 'zod';
import { CHANGELOG_CLIENTS } from '../../contract/enums.js';
import { freshnessLine, freshnessSchema } from '../../format/freshness.js';
import { changelog } from '../../upstream/endpoints/changelog.js';
import { READ_ONLY, defineTool } from '../define-tool.js';

export const getChangelog = defineTool({
  name: 'get_changelog',
  toolset: 'changelog',
  title: 'Product changelog',
  description:
    'What changed in the product: public changelog entries, newest first, 10 per page, optionally for one client (vscode, jetbrains, cli, code-review, agent-platform, models). Cached 10 minutes. Also readable as resources changelog://{client}/{page}.',
  input: z.strictObject({
    client: z.enum(CHANGELOG_CLIENTS).default('all'),
    page: z.number().int().min(0).default(0).describe('zero-based'),
  }),
  output: z.object({
    client: z.string(),
    page: z.number().int(),
    page_size: z.number().int(),
    total: z.number().int(),
    has_more: z.boolean(),
    entries: z.array(z.record(z.string(), z.unknown())),
    freshness: freshnessSchema,
  }),
  annotations: READ_ONLY,
  async run(args, ctx) {
    const { value, freshness } = await ctx.client.call(changelog, { client: args.client, page: args.page }, ctx.signal);
    return {
      client: value.client,
      page: value.page,
      page_size: value.pageSize,
      total: value.total,
      has_more: value.hasMore,
      entries: value.entries,
      freshness: {
        data_through: freshness.fetched_at.slice(0, 10),
        fetched_at: freshness.fetched_at,
        from_cache: freshness.from_cache,
        next_refresh_at: null,
        source: freshness.from_cache ? ('cache' as const) : ('live' as const),
      },
    };
  },
  text(out) {
    const field = (e: Record<string, unknown>, k: string) =>
      typeof e[k] === 'string' || typeof e[k] === 'number' ? String(e[k]) : '';
    const lines = [
      `Changelog (${out.client}), page ${out.page} of ${Math.max(1, Math.ceil(out.total / out.page_size)) - 1} (zero-based), ${out.total} ${plural(out.total, 'entry', 'entries')}${out.has_more ? `; next: page ${out.page + 1}` : ''}.`,
    ];
    for (const e of out.entries) {
      const title = field(e, 'title') || JSON.stringify(e).slice(0, 120);
      lines.push(
        `- ${[field(e, 'date'), field(e, 'client'), field(e, 'version')].filter(Boolean).join(' ')}: ${title}`,
      );
    }
    lines.push(freshnessLine(out.freshness));
    return lines.join('\n');
  },
});
