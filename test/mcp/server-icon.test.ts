import { describe, expect, it } from 'vitest';
import { harness } from '../helpers/mcp.js';
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
});
