import type { ChildProcess } from 'node:child_process';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TOOLS } from '../../src/tools/index.js';
import { startHttpBinary } from '../helpers/http-binary.js';

let child: ChildProcess;
let url: string;

beforeAll(async () => {
  ({ child, url } = await startHttpBinary(['--demo', '--http', '--port', '0'], process.env));
});
afterAll(() => child.kill());

describe('--http', () => {
  for (const mode of ['legacy', 'auto'] as const) {
    it(`serves Streamable HTTP to a ${mode === 'auto' ? '2026-07-28' : '2025-era'} client`, async () => {
      const client = new Client({ name: 'http-e2e', version: '1.0.0' }, { versionNegotiation: { mode } });
      await client.connect(new StreamableHTTPClientTransport(new URL(url)));
      try {
        expect((await client.listTools()).tools).toHaveLength(TOOLS.length);
        const r = await client.callTool({ name: 'get_changelog', arguments: { client: 'models' } });
        expect(r.isError).toBeFalsy();
      } finally {
        await client.close();
      }
    });
  }

  it('refuses a foreign Origin (DNS rebinding protection on loopback)', async () => {
    const res = await fetch(url, {
      method: 'POST',
      headers: {
        origin: 'https://evil.example',
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: '{}',
    });
    expect(res.status).toBe(403);
  });
});
