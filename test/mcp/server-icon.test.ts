import { readFileSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { describe, expect, it } from 'vitest';
import { iconPng, SERVED_ICON_FILE, SERVED_ICON_SIZE } from '../../src/mcp/icon.js';
import { harness } from '../helpers/mcp.js';
import { CLI } from '../helpers/http-binary.js';
import { expectIconDrawing, readPng } from '../helpers/png.js';

type Icon = { src: string; mimeType?: string; sizes?: string[] };

/** The icon a client is offered: a PNG in a data: URI, of the size it says. */
function expectServedIcon(icons: Icon[] | undefined) {
  expect(icons).toHaveLength(1);
  const [icon] = icons!;
  expect(icon!.mimeType).toBe('image/png');
  const [, base64] = /^data:image\/png;base64,([A-Za-z0-9+/=]+)$/.exec(icon!.src)!;
  const png = readPng(Buffer.from(base64!, 'base64'));
  expect(icon!.sizes).toEqual([`${png.width}x${png.height}`]);
  expectIconDrawing(png);
  // Small: a 2026-07-28 server repeats serverInfo on every result.
  expect(icon!.src.length).toBeLessThan(2048);
}

describe("the server's icon", () => {
  it('is offered in initialize to a 2025-era client', async () => {
    const h = await harness({ era: 'legacy', sim: { users: 10 } });
    try {
      expectServedIcon(h.mcp.getServerVersion()?.icons);
    } finally {
      await h.close();
    }
  });

  it('is offered through server/discover to a 2026-07-28 client', async () => {
    const h = await harness({ era: 'modern', sim: { users: 10 } });
    try {
      const discovered = h.mcp.getDiscoverResult() as { _meta?: Record<string, { icons?: Icon[] }> } | undefined;
      expectServedIcon(discovered?._meta?.['io.modelcontextprotocol/serverInfo']?.icons);
    } finally {
      await h.close();
    }
  });

  it('is the drawing the build wrote, which the built server reads instead of drawing it at every start', async () => {
    const dist = (name: string) => readFileSync(new URL(`../../dist/${name}`, import.meta.url));
    expect(dist(SERVED_ICON_FILE).equals(iconPng(SERVED_ICON_SIZE))).toBe(true);
    expect(dist('icon.png').equals(iconPng(512))).toBe(true);
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [CLI, '--demo'],
      env: { PATH: process.env.PATH ?? '' },
      stderr: 'ignore',
    });
    const client = new Client({ name: 'icon-e2e', version: '1.0.0' });
    await client.connect(transport);
    try {
      const icons = client.getServerVersion()?.icons;
      expectServedIcon(icons);
      expect(icons![0]!.src).toBe(`data:image/png;base64,${iconPng(SERVED_ICON_SIZE).toString('base64')}`);
    } finally {
      await client.close();
    }
  });
});
