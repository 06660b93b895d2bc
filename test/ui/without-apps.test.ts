import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VIEWS } from '../../src/ui/views.js';
import { harness, type Harness } from '../helpers/mcp.js';

let withUi: Harness;
let noUi: Harness;
beforeAll(async () => {
  withUi = await harness({ sim: { users: 90 } });
  noUi = await harness({ sim: { users: 90 }, config: { noUi: true } });
});
afterAll(async () => {
  await withUi?.close();
  await noUi?.close();
});

const CALLS: Array<[string, Record<string, unknown>]> = [
  ['get_active_user_counts', { range: 'last_30_days' }],
  ['get_user_activity', { range: 'last_7_days', limit: 5 }],
  ['get_credit_usage', { range: 'last_7_days', by_model: true, limit: 5 }],
  ['get_cost_analytics', { range: 'last_7_days', group_by: ['resource'] }],
  ['get_budget_overrides', {}],
];

describe('clients without MCP Apps', () => {
  it.each(CALLS)(
    '%s answers exactly the same text and structuredContent with the views on or off',
    async (tool, args) => {
      const [a, b] = await Promise.all([withUi.call(tool, args), noUi.call(tool, args)]);
      expect(a.isError).toBe(false);
      expect(a.text).toBe(b.text);
      expect(a.structured).toEqual(b.structured);
    },
  );

  it('--no-ui links no tool to a view and serves no ui:// resource', async () => {
    const { tools } = await noUi.mcp.listTools();
    expect(tools.filter((t) => t._meta !== undefined)).toEqual([]);
    const { resources } = await noUi.mcp.listResources();
    expect(resources.filter((r) => r.uri.startsWith('ui://'))).toEqual([]);
  });

  it('with the views on, each view tool names its view, and each view is a self-contained text/html;profile=mcp-app page', async () => {
    const { tools } = await withUi.mcp.listTools();
    for (const view of Object.values(VIEWS)) {
      for (const name of view.tools) {
        const tool = tools.find((t) => t.name === name);
        if (tool) expect((tool._meta as { ui: { resourceUri: string } }).ui.resourceUri, name).toBe(view.uri);
      }
      const read = await withUi.mcp.readResource({ uri: view.uri });
      const page = read.contents[0] as { mimeType: string; text: string };
      expect(page.mimeType).toBe('text/html;profile=mcp-app');
      // Nothing is fetched: no external script, style, font or image.
      expect(page.text).not.toMatch(/<(script|link|img)\s[^>]*(src|href)=/i);
      const styles = /<style>([\s\S]*?)<\/style>/.exec(page.text)![1]!;
      expect(styles).not.toMatch(/@import|@font-face|url\(/i);
      expect(read.contents[0]!._meta).toMatchObject({ ui: { csp: { connectDomains: [], resourceDomains: [] } } });
    }
  });
});
