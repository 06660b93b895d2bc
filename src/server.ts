import { McpServer, type ServerContext } from '@modelcontextprotocol/server';
import type { Config } from './config.js';
import type { Logger } from './logger.js';
import type { Pseudonymizer } from './pii.js';
import { registerPrompts } from './prompts/index.js';
import { registerChangelogResource } from './resources/changelog.js';
import { toolErrorMessage } from './tool-errors.js';
import { TOOLS } from './tools/index.js';
import type { ToolContext, ToolDef } from './tools/types.js';
import type { AnalyticsClient } from './upstream/client.js';
import { InvalidArgumentError, isUpstreamError } from './upstream/errors.js';
import type { Progress } from './upstream/pagination.js';
import { VERSION } from './version.js';

export interface ServerDeps {
  client: AnalyticsClient;
  config: Config;
  log: Logger;
  pii: Pseudonymizer;
  tools?: ToolDef[];
}

const INSTRUCTIONS =
  "Usage analytics, costs and budgets of one organization's AI coding product. Dates are UTC; metrics data for a day arrives ~02:00 UTC the next day, so the latest day is yesterday (credit usage also has today, partially). " +
  'Prefer `range` (last_30_days, previous_month…) over computing dates. Totals in answers cover all rows, not only those shown.';

/** Builds the MCP server: every tool, the changelog resource and the prompts, with one error boundary. */
export function createServer(deps: ServerDeps): McpServer {
  const server = new McpServer({ name: 'org-analytics-mcp', title: 'Org Analytics', version: VERSION }, { instructions: INSTRUCTIONS });
  const directory = new Directory(deps);
  for (const def of deps.tools ?? TOOLS) {
    if (def.writes && deps.config.readOnly) continue;
    server.registerTool(
      def.name,
      { title: def.title, description: def.description, inputSchema: def.input, outputSchema: def.output, annotations: def.annotations },
      (args: unknown, ctx: ServerContext) => runTool(def, args, ctx, deps, directory),
    );
  }
  registerChangelogResource(server, deps.client);
  registerPrompts(server, deps.config.readOnly);
  return server;
}

async function runTool(def: ToolDef, args: unknown, ctx: ServerContext, deps: ServerDeps, directory: Directory) {
  const started = Date.now();
  const token = ctx.mcpReq._meta?.progressToken;
  let reported = 0;
  const progress = (p: Progress) => {
    if (token === undefined || p.pages <= reported) return;
    reported = p.pages;
    ctx.mcpReq
      .notify({ method: 'notifications/progress', params: { progressToken: token, progress: p.pages, message: `${p.pages} pages, ${p.records} records fetched` } })
      .catch(() => {});
  };
  const toolCtx: ToolContext = {
    client: deps.client,
    config: deps.config,
    pii: deps.pii,
    log: deps.log,
    signal: ctx.mcpReq.signal,
    progress,
    resolveEmail: (text) => directory.resolve(text, ctx.mcpReq.signal),
  };
  try {
    const out = deps.pii.value(await def.run(args as never, toolCtx));
    deps.log.debug('tool done', { tool: def.name, ms: Date.now() - started });
    return { content: [{ type: 'text' as const, text: deps.pii.text(def.text(out)) }], structuredContent: out as Record<string, unknown> };
  } catch (error) {
    const level = isUpstreamError(error) ? 'info' : 'error';
    deps.log[level]('tool failed', { tool: def.name, ms: Date.now() - started, error: error instanceof Error ? error.message : String(error), ...(level === 'error' && error instanceof Error ? { stack: error.stack } : {}) });
    return { content: [{ type: 'text' as const, text: deps.pii.text(toolErrorMessage(error)) }], isError: true };
  }
}

/**
 * Resolves pseudonyms back to emails. Pseudonyms shown in earlier answers are known; an unknown one
 * triggers one look through recent activity and the overrides before it is refused.
 */
class Directory {
  private lastLookup = 0;
  constructor(private readonly deps: ServerDeps) {}

  async resolve(text: string, signal: AbortSignal): Promise<string> {
    const known = this.deps.pii.resolve(text);
    if (known !== undefined) return known;
    if (Date.now() - this.lastLookup > 60_000) {
      this.lastLookup = Date.now();
      const [activity, overrides] = await Promise.all([
        this.deps.client.userActivity({ range: 'last_90_days' }, { signal }),
        this.deps.client.getOverrides({}, signal),
      ]);
      this.deps.pii.learn(activity.data.flatMap((u) => (u.user_email ? [u.user_email] : [])));
      this.deps.pii.learn(overrides.value.overrides.flatMap((o) => (o.user_email ? [o.user_email] : [])));
    }
    const found = this.deps.pii.resolve(text);
    if (found === undefined) throw new InvalidArgumentError(`Unknown pseudonym '${text}': use a pseudonym from an earlier answer`);
    return found;
  }
}
