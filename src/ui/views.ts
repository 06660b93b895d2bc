import { readFile } from 'node:fs/promises';
import { registerAppResource, RESOURCE_MIME_TYPE } from '@modelcontextprotocol/ext-apps/server';
import type { McpServer } from '@modelcontextprotocol/server';

/** The MCP Apps views, built by `npm run build` into dist/views/ as self-contained HTML, and the tools they show. */
export const VIEWS = {
  usage: {
    uri: 'ui://org-analytics/usage.html',
    title: 'Usage charts',
    description:
      'Trend, ranking, split, adoption and anomaly charts, with a table of every value, drawn from the tool answer.',
    // get_adoption and find_anomalies link here once they are registered; a name with no tool links nothing.
    tools: [
      'get_usage_overview',
      'get_active_user_counts',
      'get_user_activity',
      'get_credit_usage',
      'get_cost_analytics',
      'get_adoption',
      'find_anomalies',
    ],
  },
  budget: {
    uri: 'ui://org-analytics/budget.html',
    title: 'Budget editor',
    description: "Each override's use against its limit; edits limits with a dry run first, then applies.",
    tools: ['get_budget_status', 'get_budget_overrides'],
  },
} as const;

export type ViewName = keyof typeof VIEWS;

export const viewOfTool = (tool: string): (typeof VIEWS)[ViewName] | undefined =>
  Object.values(VIEWS).find((view) => (view.tools as readonly string[]).includes(tool));

const html = new Map<ViewName, Promise<string>>();

/** Next to the bundle in dist/; from src/ (tests), in the dist/ the build wrote. */
function load(name: ViewName): Promise<string> {
  let text = html.get(name);
  if (!text) {
    const besideBundle = new URL(`./views/${name}.html`, import.meta.url);
    const fromSource = new URL(`../../dist/views/${name}.html`, import.meta.url);
    text = readFile(besideBundle, 'utf8').catch(() =>
      readFile(fromSource, 'utf8').catch(() => {
        throw new Error(`The ${name} view is not built: run npm run build.`);
      }),
    );
    html.set(name, text);
    text.catch(() => html.delete(name));
  }
  return text;
}

/**
 * Registers each view as a ui:// resource. `writable` says, at each read, whether the budget view may offer
 * its editing controls: the tool inventory's answer (not on a read-only server, for a read caller, nor on a
 * login without the write scope).
 */
export function registerViews(server: McpServer, writable: () => boolean): void {
  for (const [name, view] of Object.entries(VIEWS) as Array<[ViewName, (typeof VIEWS)[ViewName]]>) {
    registerAppResource(
      server,
      view.title,
      view.uri,
      { description: view.description, mimeType: RESOURCE_MIME_TYPE },
      async (uri) => ({
        contents: [
          {
            uri: uri.href,
            mimeType: RESOURCE_MIME_TYPE,
            text: (await load(name)).replace('<html lang="en">', `<html lang="en" data-writable="${writable()}">`),
            // No connections, no external resources: the view draws from the tool result it is handed.
            _meta: { ui: { csp: { connectDomains: [], resourceDomains: [] }, prefersBorder: true } },
          },
        ],
      }),
    );
  }
}
