import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { describe, expect, it } from 'vitest';
import { DEFAULT_TOOLSETS } from '../../src/config/options-tools.js';
import { inToolsets } from '../../src/tools/toolsets.js';
import { TOOLS } from '../../src/tools/index.js';
import { expectIconDrawing, readPng } from '../helpers/png.js';

/** What a server started without --toolsets offers (the variable the tests set does not reach this one). */
const DEFAULT_OFFERED = TOOLS.filter((t) => inToolsets(t, DEFAULT_TOOLSETS));

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CLI = join(ROOT, 'dist/cli.js');
const bin = (name: string) => join(ROOT, 'node_modules/.bin', name);

describe('a 2025-era client: MCP Inspector CLI 0.18 over stdio', () => {
  // Inspector CLI 0.18 looks for its own package.json as '../package.json' from the working directory
  // (though it imports it from its build/): any folder one level inside the project satisfies it.
  const inspect = (...args: string[]) =>
    spawnSync(bin('mcp-inspector-cli'), ['--cli', process.execPath, CLI, '--demo', ...args], {
      cwd: join(ROOT, 'test'),
      encoding: 'utf8',
      timeout: 60_000,
    });

  it('lists the tools', () => {
    const run = inspect('--method', 'tools/list');
    expect(run.status, run.stderr).toBe(0);
    const names = JSON.parse(run.stdout).tools.map((t: { name: string }) => t.name);
    expect(names).toContain('get_credit_usage');
    expect(names).toHaveLength(TOOLS.length);
  });

  it('calls a tool', () => {
    const run = inspect(
      '--method',
      'tools/call',
      '--tool-name',
      'get_credit_usage',
      '--tool-arg',
      'range=last_7_days',
      '--tool-arg',
      'limit=3',
    );
    expect(run.status, run.stderr).toBe(0);
    const result = JSON.parse(run.stdout);
    expect(result.isError ?? false).toBe(false);
    expect(result.structuredContent.returned_rows).toBe(3);
  });
});

describe('manifest.json and the MCPB bundle', () => {
  it('validates, with the icon the build draws', () => {
    expect(execFileSync(bin('mcpb'), ['validate', join(ROOT, 'manifest.json')], { encoding: 'utf8' })).toMatch(
      /passes/,
    );
    const manifest = JSON.parse(readFileSync(join(ROOT, 'manifest.json'), 'utf8'));
    expect(manifest.manifest_version).toBe('0.3');
    expect(manifest.privacy_policies).toEqual([expect.stringMatching(/^https:\/\/.+#privacy$/)]);
    const icon = readPng(readFileSync(join(ROOT, manifest.icon)));
    expect([icon.width, icon.height]).toEqual([512, 512]);
    expectIconDrawing(icon);
  });

  it('packs a bundle without build leftovers, whose server starts with --demo and offers its icon', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'oam-mcpb-'));
    // What `npm pack` and an earlier `mcpb pack` leave at the top of the tree.
    const leftovers = [`org-analytics-mcp-${process.pid}.tgz`, `earlier-${process.pid}.mcpb`].map((f) => join(ROOT, f));
    for (const file of leftovers) writeFileSync(file, 'leftover');
    try {
      execFileSync(bin('mcpb'), ['pack', ROOT, join(dir, 'bundle.mcpb')], { encoding: 'utf8' });
      execFileSync(bin('mcpb'), ['unpack', join(dir, 'bundle.mcpb'), join(dir, 'x')], { encoding: 'utf8' });
      const files = readdirSync(join(dir, 'x'), { recursive: true, encoding: 'utf8' });
      expect(files.filter((f) => /\.(tgz|mcpb)$/.test(f))).toEqual([]);
      expect(files.filter((f) => /^(src|test|coverage|node_modules|\.ci)([\\/]|$)/.test(f))).toEqual([]);
      expect(files).toEqual(expect.arrayContaining(['manifest.json', 'package.json', 'dist/cli.js', 'dist/icon.png']));
      const client = new Client({ name: 'bundle', version: '1.0.0' });
      await client.connect(
        new StdioClientTransport({
          command: process.execPath,
          args: [join(dir, 'x/dist/cli.js'), '--demo'],
          stderr: 'pipe',
        }),
      );
      try {
        expect((await client.listTools()).tools).toHaveLength(DEFAULT_OFFERED.length);
        expect(client.getServerVersion()?.icons?.[0]?.src).toMatch(/^data:image\/png;base64,/);
      } finally {
        await client.close();
      }
    } finally {
      for (const file of leftovers) rmSync(file, { force: true });
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
