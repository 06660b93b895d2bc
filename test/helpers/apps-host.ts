import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Client } from '@modelcontextprotocol/client';
import { build } from 'esbuild';
import type { Browser, FrameLocator, Locator, Page } from 'playwright-core';

/** Where the browser tests leave their screenshots: test/.output/ (not committed). */
export const OUTPUT_DIR = fileURLToPath(new URL('../.output/ui/', import.meta.url));

let hostScript: Promise<string> | undefined;
const bundleHost = () =>
  (hostScript ??= build({
    entryPoints: [fileURLToPath(new URL('../ui/host/page.ts', import.meta.url))],
    bundle: true,
    format: 'iife',
    platform: 'browser',
    write: false,
    logLevel: 'error',
  }).then((out) => out.outputFiles[0]!.text));

export interface ShownView {
  page: Page;
  view: FrameLocator;
  /** Tool calls the view made through the host. */
  calls: Array<{ name: string; arguments?: Record<string, unknown> }>;
  screenshot(name: string): Promise<string>;
}

/**
 * Shows a tool's answer the way an MCP Apps host does: reads the tool's ui:// resource from the server,
 * loads it in a sandboxed iframe, and hands it the tool input and result through the AppBridge.
 */
export async function showInHost(
  browser: Browser,
  mcp: Client,
  tool: string,
  args: Record<string, unknown>,
  hostContext: Record<string, unknown> = {},
): Promise<ShownView & { result: Record<string, any> }> {
  const { tools } = await mcp.listTools();
  const uri = (tools.find((t) => t.name === tool)?._meta as { ui?: { resourceUri?: string } })?.ui?.resourceUri;
  if (!uri) throw new Error(`${tool} names no view`);
  const result = (await mcp.callTool({ name: tool, arguments: args })) as Record<string, any>;
  const info = tools.find((t) => t.name === tool) as Record<string, unknown>;
  return showResultInHost(browser, mcp, uri, info, args, result, hostContext);
}

/**
 * Shows a given result (a real answer, or a fixture for a tool the server does not have) in the view at
 * `uri`, read from the server, as if `tool` had answered it.
 */
export async function showResultInHost(
  browser: Browser,
  mcp: Client,
  uri: string,
  tool: Record<string, unknown>,
  args: Record<string, unknown>,
  result: Record<string, any>,
  hostContext: Record<string, unknown> = {},
): Promise<ShownView & { result: Record<string, any> }> {
  const resource = await mcp.readResource({ uri });
  const html = (resource.contents[0] as { text: string }).text;
  const page = await browser.newPage({ viewport: { width: 760, height: 900 } });
  const calls: ShownView['calls'] = [];
  await page.exposeFunction('hostCallTool', async (params: { name: string; arguments?: Record<string, unknown> }) => {
    calls.push(params);
    return mcp.callTool(params);
  });
  await page.setContent(
    '<!doctype html><html><body style="margin:0"><iframe id="view" sandbox="allow-scripts" style="border:0;width:740px;height:880px"></iframe></body></html>',
  );
  await page.addScriptTag({ content: await bundleHost() });
  // Passed as JSON text: the start object's types are too deep for Playwright's serialisable-argument check.
  const start = JSON.stringify({ html, args, result, hostContext: { toolInfo: { tool }, ...hostContext } });
  await page.evaluate((text: string) => (globalThis as any).startHost(JSON.parse(text)), start);
  return {
    page,
    view: page.frameLocator('#view'),
    calls,
    result,
    async screenshot(name) {
      mkdirSync(OUTPUT_DIR, { recursive: true });
      const path = join(OUTPUT_DIR, `${name}.png`);
      await page.screenshot({ path, fullPage: true });
      return path;
    },
  };
}

/** The lines of the chart's tooltip now shown (Observable Plot starts each with a zero-width space). */
export const tipLines = async (chart: Locator): Promise<string[]> =>
  (await chart.locator('[aria-label="tip"] tspan').allTextContents()).map((t) => t.replace(/\u200b/g, ''));

/** The entries of a chart legend (Observable Plot's swatches) within `scope`. */
export const legendEntries = (scope: Locator | FrameLocator): Promise<string[]> =>
  scope.locator('.legend span[class$="-swatch"]').allTextContents();
